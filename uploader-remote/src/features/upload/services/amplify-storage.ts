import { fetchAuthSession } from 'aws-amplify/auth';
import { uploadData } from 'aws-amplify/storage';
import { encodeMetadataValue } from '../model/metadata-encoding';
import type { UploadJob } from './upload-engine';
import { SessionEndedError } from './uploader-services';

/** Where an upload goes: `public/` (guest) or the user's `private/{identityId}/` (training). */
export type StorageLevel = 'public' | 'private';

/** The per-batch choices every upload of the batch carries. */
export interface UploadTarget {
  level: StorageLevel;
  ranchId: string;
  /** The chosen camera's name; "" when none was indicated. */
  cameraName: string;
}

/** The object's path for a level (Amplify v6 `path`; SPEC.md's public level is v6's guest, under public/). */
export function objectPath(level: StorageLevel, key: string, identityId: string | undefined): string {
  if (level === 'public') return `public/${key}`;
  if (!identityId) throw new Error('No identity id for a private upload');
  return `private/${identityId}/${key}`;
}

/**
 * One PUT per image with `uploadData` (SPEC.md §7 Object storage): content type image/jpg,
 * no-cache, the accelerated endpoint, metadata ranchid and camera_name (US-ASCII, as S3 requires:
 * model/metadata-encoding.ts). The ranchid tag is set bucket-side (sandbox/README.md). Not
 * resumable is v6's default. Abort cancels the transfer.
 */
export async function amplifyUpload(
  target: UploadTarget,
  job: UploadJob,
  context: { onProgress: (fraction: number) => void; signal: AbortSignal },
): Promise<void> {
  const operation = uploadData({
    path: ({ identityId }) => objectPath(target.level, job.key, identityId),
    data: job.file,
    options: {
      contentType: 'image/jpg',
      cacheControl: 'no-cache',
      useAccelerateEndpoint: true,
      metadata: { ranchid: encodeMetadataValue(target.ranchId), camera_name: encodeMetadataValue(target.cameraName) },
      onProgress: ({ transferredBytes, totalBytes }) => {
        if (totalBytes) context.onProgress(transferredBytes / totalBytes);
      },
    },
  });
  const cancel = () => operation.cancel();
  context.signal.addEventListener('abort', cancel);
  try {
    await operation.result;
  } finally {
    context.signal.removeEventListener('abort', cancel);
  }
}

/**
 * Forces new identity-pool credentials (after an expired-credentials error mid-batch). When the
 * session cannot be refreshed (signed out, refresh token revoked or expired) Amplify clears it and
 * answers without tokens: that is `SessionEndedError`, and the batch pauses for a sign-in. A
 * network failure is thrown as it is (the batch retries or waits for the network).
 */
export async function refreshAmplifyCredentials(): Promise<void> {
  let session;
  try {
    session = await fetchAuthSession({ forceRefresh: true });
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'NotAuthorizedException' || name === 'UserUnAuthenticatedException') throw new SessionEndedError(String((error as Error).message));
    throw error;
  }
  if (!session.tokens || !session.credentials) throw new SessionEndedError();
}
