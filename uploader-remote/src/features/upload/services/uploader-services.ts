import type { Analytics, ProductApi } from '@trailsense/shared';
import type { RetryPolicy } from '../model/retry';
import type { FileFacts } from '../model/file-filter';
import type { UploadTarget } from './amplify-storage';
import type { UploadJob } from './upload-engine';

/**
 * Every side effect of the uploader, injected (AU "services"): the app passes the real ones
 * (`realUploaderServices`), component tests pass fakes.
 */
export interface UploaderServices {
  api: ProductApi;
  analytics: Analytics;
  upload(target: UploadTarget, job: UploadJob, context: { onProgress: (fraction: number) => void; signal: AbortSignal }): Promise<void>;
  refreshCredentials(): Promise<void>;
  readHeads(files: readonly (FileFacts & Blob)[]): Promise<Map<number, Uint8Array>>;
  /** A random unique id (object keys are this plus the original extension). */
  newId(): string;
  now(): Date;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /** Where failures that are only logged go (SPEC.md §8). */
  logError(message: string, error: unknown): void;
  retry: RetryPolicy;
}
