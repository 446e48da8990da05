/** Which form failed: the same error code can mean different things to the user. */
export type AuthErrorContext = 'password' | 'profile' | 'delete' | 'general';

/** What a person is told when an account call fails: specific where the cause is known. */
export function describeAuthError(error: unknown, context: AuthErrorContext = 'general'): string {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  switch (name) {
    case 'NetworkError':
      return 'Network Error';
    case 'NotAuthorizedException':
      return context === 'password' ? 'Your current password is incorrect.' : 'Your session has expired. Sign in again and retry.';
    case 'InvalidPasswordException':
      return 'The new password does not meet the rules: use at least 8 characters.';
    case 'LimitExceededException':
    case 'TooManyRequestsException':
      return 'Too many attempts. Wait a few minutes, then try again.';
    case 'InvalidParameterException':
      return `Some of what you entered was not accepted: ${message}`;
    case 'UserUnAuthenticatedException':
      return 'You are signed out. Sign in again and retry.';
    default:
      return message || 'Something went wrong. Please try again.';
  }
}
