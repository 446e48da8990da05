import type { Analytics } from '@trailsense/shared';
import type { ProductApi } from '@trailsense/shared/aws';
import type { RetryPolicy } from '../model/retry';
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
  /** A file's first bytes (enough for the JPEG signature), or null if it cannot be read. */
  readHead(file: Blob): Promise<Uint8Array | null>;
  /** A random unique id (object keys are this plus the original extension). */
  newId(): string;
  now(): Date;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /** Where failures that are only logged go (SPEC.md §8). */
  logError(message: string, error: unknown): void;
  retry: RetryPolicy;
}
