/** A Cognito-shaped error: the gateway answers it as `{ __type, message }` with `status`. */
export class CognitoFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = type;
  }
}

export const INCORRECT_CREDENTIALS = 'Incorrect username or password.';
