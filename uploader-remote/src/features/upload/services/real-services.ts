import type { RuntimeConfig } from '@trailsense/shared';
import { amplifyIdToken, createAnalytics, createProductApi } from '@trailsense/shared/aws';
import { DEFAULT_RETRY } from '../model/retry';
import { amplifyUpload, refreshAmplifyCredentials } from './amplify-storage';
import { readFileHead } from './read-file-head';
import { abortableSleep } from './upload-engine';
import type { UploaderServices } from './uploader-services';

/** The uploader's services for a runtime config: the product API, analytics and Amplify storage. */
export function realUploaderServices(config: RuntimeConfig): UploaderServices {
  return {
    api: createProductApi({ baseUrl: config.api.baseUrl, getIdToken: amplifyIdToken }),
    analytics: createAnalytics(config.analytics),
    upload: amplifyUpload,
    refreshCredentials: refreshAmplifyCredentials,
    readHead: (file) => readFileHead(file),
    newId: () => crypto.randomUUID(),
    now: () => new Date(),
    sleep: abortableSleep,
    random: Math.random,
    logError: (message, error) => console.error(message, error),
    retry: DEFAULT_RETRY,
  };
}
