/**
 * The runtime configuration every app reads from `/config.json` at start.
 * Local (sandbox) and production differ only in these values.
 */
export interface RuntimeConfig {
  brand: Brand;
  auth: AuthConfig;
  storage: StorageConfig;
  api: ApiConfig;
  analytics: AnalyticsConfig;
  /** Each remote's `mf-manifest.json` URL. */
  remotes: RemotesConfig;
}

/** Brand settings: {product} and {email} (docs/product.md#brand), and the store links. */
export interface Brand {
  productName: string;
  supportEmail: string;
  appStoreUrl: string;
  googlePlayUrl: string;
  /** Where the QR code on the Get App toolbar points (a page that sends phones to their store). */
  qrTargetUrl: string;
  /**
   * The site's policy pages, linked from the footer, the sign-up form and the deletion page: a
   * path on the site's origin (a remote inside the shell links to the shell's page) or a URL.
   */
  privacyPolicyUrl: string;
  termsUrl: string;
}

export interface AuthConfig {
  region: string;
  userPoolId: string;
  userPoolClientId: string;
  identityPoolId: string;
  /** Full `http(s)://host:port` URL of a Cognito user-pool endpoint (sandbox); AWS when absent. */
  userPoolEndpoint?: string;
  /** Full URL of a Cognito identity-pool endpoint (sandbox); AWS when absent. */
  identityPoolEndpoint?: string;
  /** Whether /login offers "Create Account". Hidden unless set. */
  signUpEnabled: boolean;
  /**
   * The pool's sign-in choices beside the password (docs/product.md#sign-in-flow): a code by
   * e-mail (Cognito EMAIL_OTP) and passkeys (WEB_AUTHN). Only what the pool allows: an
   * Essentials-tier pool with those first factors (infra/docs/server.md#sign-in). Both off unless set.
   */
  passwordless: PasswordlessConfig;
}

export interface PasswordlessConfig {
  emailCode: boolean;
  passkeys: boolean;
}

export interface StorageConfig {
  bucket: string;
  region: string;
  /**
   * Sandbox only: Amplify sends storage calls to http://localhost:20005 (path style).
   * See docs/architecture.md#auth-and-storage-with-amplify.
   */
  dangerouslyConnectToHttpEndpointForTesting?: boolean;
}

export interface ApiConfig {
  /** Base URL of the product API (subscriptions, ranches, cameras), without a trailing slash. */
  baseUrl: string;
  /**
   * Base URL of the uploads API (this repository's, infra/src/uploads-api/: upload-metrics and
   * reservations), without a trailing slash. The sandbox serves both APIs on one base.
   */
  uploadsBaseUrl: string;
}

/**
 * Where analytics events go (docs/architecture.md#analytics-port). `vitalsSampleRate` is the share
 * of page views whose Core Web Vitals are recorded, 0–1 (docs/monitoring.md#sampling): 1 in
 * config/local.json and config/e2e.json; absent, {@link DEFAULT_VITALS_SAMPLE_RATE}
 * (`vitalsSampleRate()` reads it).
 */
export type AnalyticsConfig =
  | { provider: 'sandbox'; endpoint: string; vitalsSampleRate?: number }
  | { provider: 'firehose'; region: string; streamName: string; vitalsSampleRate?: number }
  | { provider: 'none' };

/** Production's share of page views measured, when the config names none (docs/monitoring.md#sampling). */
export const DEFAULT_VITALS_SAMPLE_RATE = 0.25;

/** The share of page views whose vitals are recorded (0 when analytics is off). */
export function vitalsSampleRate(config: AnalyticsConfig): number {
  if (config.provider === 'none') return 0;
  return config.vitalsSampleRate ?? DEFAULT_VITALS_SAMPLE_RATE;
}

export interface RemotesConfig {
  auth: string;
  uploader: string;
}
