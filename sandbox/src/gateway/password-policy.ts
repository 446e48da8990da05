import { CognitoFault } from './errors';

/**
 * Cognito's check of a new password against the pool policy (minimum length only, as this pool
 * requires no character classes). Returns Cognito's message, or undefined when it conforms.
 */
export function passwordPolicyViolation(password: unknown, minimumLength: number): string | undefined {
  if (typeof password !== 'string') return undefined; // missing fields are the target's InvalidParameter
  if (password.length < minimumLength) return 'Password did not conform with policy: Password not long enough';
  if (password.length > 256) return 'Password did not conform with policy: Password must have length less than or equal to 256';
  return undefined;
}

export function assertPasswordPolicy(password: unknown, minimumLength: number): void {
  const violation = passwordPolicyViolation(password, minimumLength);
  if (violation) throw new CognitoFault('InvalidPasswordException', violation);
}
