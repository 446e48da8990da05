/**
 * An environment as synth reads it: its settings file (src/settings.ts) and the runtime config it
 * serves (`/config.json`, docs/architecture.md#runtime-configuration), read and checked before any
 * stack is built — the settings, then the runtime config's own shape, then what it must agree on
 * with the settings. Any problem stops synth with a `SettingsError` that lists them all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { checkSettings, httpsOrigin, SettingsError } from './settings';
import type { Settings } from './settings';

/** An environment ready to be synthesized: its checked settings and runtime config. */
export interface Environment {
  settings: Settings;
  runtimeConfig: RuntimeConfig;
  /** The settings file it was read from. */
  settingsFile: string;
  /** The runtime config file (resolved). */
  runtimeConfigFile: string;
}

/**
 * What a production runtime config must agree on with the settings: AWS endpoints only (no
 * sandbox), the settings' region, the Firehose stream the Analytics stack creates, the remotes at
 * their domains, the existing pools when the settings name them, a bucket name Transfer
 * Acceleration accepts (no dots), and the uploads API at its custom domain when the settings give
 * it one (https in any case). Fields are the runtime config's (`analytics.streamName`).
 */
export function checkRuntimeConfig(settings: Settings, config: RuntimeConfig): string[] {
  const problems: string[] = [];
  const { auth, storage, api, analytics, remotes } = config;
  if (auth.userPoolEndpoint) problems.push("auth.userPoolEndpoint is set: production uses AWS's endpoint (that field is for the sandbox).");
  if (auth.identityPoolEndpoint) problems.push("auth.identityPoolEndpoint is set: production uses AWS's endpoint (that field is for the sandbox).");
  if (storage.dangerouslyConnectToHttpEndpointForTesting) problems.push('storage.dangerouslyConnectToHttpEndpointForTesting is set: sandbox only.');
  if (auth.region !== settings.region) problems.push(`auth.region is ${auth.region}, but the settings' region is ${settings.region}.`);
  if (storage.region !== settings.region)
    problems.push(`storage.region is ${storage.region}, but the settings' region is ${settings.region} (the Uploads stack's).`);
  if (storage.bucket.includes('.')) problems.push(`storage.bucket ${storage.bucket} contains a dot, which Transfer Acceleration refuses.`);
  if (!api.baseUrl.startsWith('https://')) problems.push(`api.baseUrl ${api.baseUrl} is not https.`);
  if (settings.uploadsApi) {
    const url = httpsOrigin(settings.uploadsApi.domainName);
    if (api.uploadsBaseUrl !== url)
      problems.push(
        `api.uploadsBaseUrl is ${api.uploadsBaseUrl}, but the uploads API is served at its custom domain ${url} (the settings' uploadsApi.domainName).`,
      );
  } else if (!api.uploadsBaseUrl.startsWith('https://')) {
    problems.push(`api.uploadsBaseUrl ${api.uploadsBaseUrl} is not https.`);
  }
  if (analytics.provider !== 'firehose') {
    problems.push(`analytics.provider is ${analytics.provider}: production sends its events to the Analytics stack's Firehose stream ("firehose").`);
  } else {
    if (analytics.streamName !== settings.analyticsStreamName) {
      problems.push(
        `analytics.streamName is ${analytics.streamName}, but the settings' analyticsStreamName (the stream the Analytics stack creates) is ${settings.analyticsStreamName}.`,
      );
    }
    if (analytics.region !== settings.region) problems.push(`analytics.region is ${analytics.region}, but the settings' region is ${settings.region}.`);
  }
  const expected = { auth: settings.domains.authRemote, uploader: settings.domains.uploaderRemote };
  for (const key of ['auth', 'uploader'] as const) {
    const url = `${httpsOrigin(expected[key])}/mf-manifest.json`;
    if (remotes[key] !== url) problems.push(`remotes.${key} is ${remotes[key]}, but that remote is hosted at ${url}.`);
  }
  if (settings.userPoolId && auth.userPoolId !== settings.userPoolId) {
    problems.push(`auth.userPoolId is ${auth.userPoolId}, but the settings use the existing user pool ${settings.userPoolId}.`);
  }
  if (settings.identityPoolId && auth.identityPoolId !== settings.identityPoolId) {
    problems.push(`auth.identityPoolId is ${auth.identityPoolId}, but the settings use the existing identity pool ${settings.identityPoolId}.`);
  }
  return problems;
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new SettingsError(file, [`the ${what} file does not exist or cannot be read.`]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SettingsError(file, [`the ${what} is not valid JSON: ${(error as Error).message}`]);
  }
}

/** Reads and checks an environment's settings file and the runtime config it names; throws a `SettingsError`. */
export function loadEnvironment(settingsFile: string): Environment {
  const checked = checkSettings(readJson(settingsFile, 'settings'));
  if (!checked.ok) throw new SettingsError(settingsFile, checked.problems);
  const { settings } = checked;
  const runtimeConfigFile = path.resolve(path.dirname(settingsFile), settings.runtimeConfig);
  const parsed = parseRuntimeConfig(readJson(runtimeConfigFile, 'runtime config'));
  if (!parsed.ok) throw new SettingsError(runtimeConfigFile, parsed.problems);
  const problems = checkRuntimeConfig(settings, parsed.config);
  if (problems.length > 0) throw new SettingsError(runtimeConfigFile, problems);
  return { settings, runtimeConfig: parsed.config, settingsFile, runtimeConfigFile };
}
