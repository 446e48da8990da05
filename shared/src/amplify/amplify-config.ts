import type { ResourcesConfig } from 'aws-amplify';
import type { RuntimeConfig } from '../config/types';

/** Minimum password length of the product's user pool (docs/product.md#account-and-sign-in-constants). */
export const PASSWORD_MIN_LENGTH = 8;

/**
 * Maps the runtime config to Amplify's resources config. Pure, so the mapping is tested without
 * configuring anything.
 */
export function toAmplifyConfig(config: RuntimeConfig): ResourcesConfig {
  const { auth, storage } = config;
  return {
    Auth: {
      Cognito: {
        userPoolId: auth.userPoolId,
        userPoolClientId: auth.userPoolClientId,
        identityPoolId: auth.identityPoolId,
        ...(auth.userPoolEndpoint ? { userPoolEndpoint: auth.userPoolEndpoint } : {}),
        ...(auth.identityPoolEndpoint ? { identityPoolEndpoint: auth.identityPoolEndpoint } : {}),
        loginWith: { email: true },
        signUpVerificationMethod: 'code',
        userAttributes: { email: { required: true }, name: { required: true }, phone_number: { required: true } },
        passwordFormat: {
          minLength: PASSWORD_MIN_LENGTH,
          requireLowercase: false,
          requireUppercase: false,
          requireNumbers: false,
          requireSpecialCharacters: false,
        },
        mfa: { status: 'off' },
        // What the sign-in kit offers beside the password (it reads Amplify's config): the pool's choices.
        ...(auth.passwordless.emailCode || auth.passwordless.passkeys
          ? { passwordless: { emailOtpEnabled: auth.passwordless.emailCode, ...(auth.passwordless.passkeys ? { webAuthn: {} } : {}) } }
          : {}),
      },
    },
    Storage: {
      S3: {
        bucket: storage.bucket,
        region: storage.region,
        // Amplify's own switch for a local S3 emulator; the value is a string flag in its types.
        ...(storage.dangerouslyConnectToHttpEndpointForTesting ? { dangerouslyConnectToHttpEndpointForTesting: 'true' } : {}),
      },
    },
  };
}
