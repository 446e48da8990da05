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

/**
 * What Cognito's front end (as every AWS JSON-protocol service) answers an operation that needs
 * SigV4 when the request carries no signature at all.
 */
export const MISSING_AUTHENTICATION = new CognitoFault('MissingAuthenticationTokenException', 'Request is missing Authentication Token');

/**
 * The answer when such a request is signed: the gateway knows no IAM keys, so every signature is
 * one AWS would not recognise (an SDK client always signs these operations with whatever
 * credentials it found).
 */
export const UNRECOGNIZED_CLIENT = new CognitoFault('UnrecognizedClientException', 'The security token included in the request is invalid.');
