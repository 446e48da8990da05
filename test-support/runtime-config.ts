import type { RuntimeConfig } from '@trailsense/shared';
import { defaultBrand } from '@trailsense/shared';

/** A valid runtime config for tests (the same shape as config/local.json). */
export const testConfig: RuntimeConfig = {
  brand: defaultBrand,
  auth: {
    region: 'us-east-2',
    userPoolId: 'us-east-2_TestPool1',
    userPoolClientId: 'testclient0123456789abcdef',
    identityPoolId: 'us-east-2:7f0c7a8e-5b1d-4c2e-9a43-1f6d2b8c9e10',
    userPoolEndpoint: 'http://localhost:4100',
    identityPoolEndpoint: 'http://localhost:4100',
    signUpEnabled: false,
    passwordless: { emailCode: true, passkeys: true },
  },
  storage: { bucket: 'trailsense-test', region: 'us-east-2', dangerouslyConnectToHttpEndpointForTesting: true },
  api: { baseUrl: 'http://localhost:4103', uploadsBaseUrl: 'http://localhost:4103' },
  analytics: { provider: 'sandbox', endpoint: 'http://localhost:4104/events', vitalsSampleRate: 1 },
  remotes: { auth: 'http://localhost:3001/mf-manifest.json', uploader: 'http://localhost:3002/mf-manifest.json' },
};
