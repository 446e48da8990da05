import { Amplify } from 'aws-amplify';
import type { RuntimeConfig } from '../config/types';
import { toAmplifyConfig } from './amplify-config';

let configuredWith: RuntimeConfig | null = null;

/**
 * Configures the one Amplify instance on the page, once. The shell and every remote call this;
 * because the shared package is a federation singleton, only the first call configures, and a
 * remote rendered inside the shell reuses the shell's session.
 */
export function configureAmplifyOnce(config: RuntimeConfig): void {
  if (configuredWith) return;
  Amplify.configure(toAmplifyConfig(config));
  configuredWith = config;
}
