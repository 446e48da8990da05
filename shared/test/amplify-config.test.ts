import { toAmplifyConfig } from '../src/amplify/amplify-config';
import { testConfig } from '../../test-support/runtime-config';

describe('toAmplifyConfig', () => {
  it('points Amplify at the configured pools and endpoints with email login and the password policy', () => {
    const cognito = toAmplifyConfig(testConfig).Auth?.Cognito;
    expect(cognito).toMatchObject({
      userPoolId: 'us-east-2_TestPool1',
      userPoolClientId: 'testclient0123456789abcdef',
      identityPoolId: 'us-east-2:7f0c7a8e-5b1d-4c2e-9a43-1f6d2b8c9e10',
      userPoolEndpoint: 'http://localhost:4100',
      identityPoolEndpoint: 'http://localhost:4100',
      loginWith: { email: true },
      passwordFormat: { minLength: 8, requireNumbers: false, requireSpecialCharacters: false },
    });
  });

  it('tells the sign-in kit the pool’s choices beside the password, and none when both are off', () => {
    expect(toAmplifyConfig(testConfig).Auth?.Cognito.passwordless).toEqual({ emailOtpEnabled: true, webAuthn: {} });
    const codeOnly = { ...testConfig, auth: { ...testConfig.auth, passwordless: { emailCode: true, passkeys: false } } };
    expect(toAmplifyConfig(codeOnly).Auth?.Cognito.passwordless).toEqual({ emailOtpEnabled: true });
    const none = { ...testConfig, auth: { ...testConfig.auth, passwordless: { emailCode: false, passkeys: false } } };
    expect(toAmplifyConfig(none).Auth?.Cognito).not.toHaveProperty('passwordless');
  });

  it('uses AWS endpoints when none are configured', () => {
    const { userPoolEndpoint: _u, identityPoolEndpoint: _i, ...auth } = testConfig.auth;
    const cognito = toAmplifyConfig({ ...testConfig, auth }).Auth?.Cognito as unknown as Record<string, unknown>;
    expect(cognito).not.toHaveProperty('userPoolEndpoint');
    expect(cognito).not.toHaveProperty('identityPoolEndpoint');
  });

  it('connects storage to the local emulator only when the config says so', () => {
    expect(toAmplifyConfig(testConfig).Storage?.S3).toEqual({
      bucket: 'trailsense-test',
      region: 'us-east-2',
      dangerouslyConnectToHttpEndpointForTesting: 'true',
    });
    const production = { ...testConfig, storage: { bucket: 'trailsense-prod', region: 'us-east-2' } };
    expect(toAmplifyConfig(production).Storage?.S3).toEqual({ bucket: 'trailsense-prod', region: 'us-east-2' });
  });
});
