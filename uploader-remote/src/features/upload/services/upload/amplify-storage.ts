import { fetchAuthSession } from 'aws-amplify/auth';
import type * as AmplifyStorage from 'aws-amplify/storage';
import { uploadKey } from '@trailsense/shared/object-key';
import { captureCorrectionSeconds, formatCaptureCorrection, METADATA, type PhotoForm } from '@trailsense/shared/uploads-wire';
import { encodeMetadataValue } from '../../model/metadata-encoding';
import { isAlreadyStored } from '../../model/retry';
import type { PhotoExif } from '../../model/photo-exif';
import type { UploadJob } from './upload-engine';
import { SessionEndedError } from './session-ended-error';

/** Where an upload goes: `public/` (guest) or the user's `private/{identityId}/` (training). */
export type StorageLevel = 'public' | 'private';

/** The per-batch choices every upload of the batch carries. */
export interface UploadTarget {
  level: StorageLevel;
  ranchId: string;
  /** The chosen camera's name; "" when none was indicated. */
  cameraName: string;
  /** What the photo's EXIF says (capture time, camera), when it was read. */
  photo?: PhotoExif | null;
  /** The upload slot's reservation (the uploads API granted it; the server counts the object against it). */
  reservation?: string;
  /** The photo's content fingerprint (model/fingerprint.ts): the ranch's photos are known by it on every device. */
  fingerprint?: string;
  /** Sent as a smaller copy or as the original (model/photo-forms.ts); absent: the original. */
  form?: PhotoForm;
}

/**
 * The object metadata of an upload: ranchid and camera_name always (the seed's contract), the
 * upload slot's reservation, the photo's fingerprint and its form (`photo_form`: copy or
 * original; infra/src/object-created/handler.ts), and
 * from the photo's EXIF capture_time (the camera's local time as written, with its offset when the
 * camera recorded one: "2024-10-03T05:12:44" or "2024-10-03T05:12:44-05:00"), camera_make,
 * camera_model and camera_serial when present. Every value US-ASCII (model/metadata-encoding.ts).
 * A corrected capture time is sent as capture_time, with the camera's own as camera_capture_time
 * (the same offset) and the seconds between them as capture_correction, all three or neither: the
 * server refuses an object whose correction does not add up (shared/src/uploads/wire.ts
 * `captureCorrectionOf`), so one that cannot be written (over 100 years) throws here, before a
 * byte is sent. The member's turn is sent as photo_turn on an original only: a copy is drawn
 * upright by the browser, and the server refuses a copy with a turn.
 */
export function uploadMetadata(target: UploadTarget): Record<string, string> {
  const metadata: Record<string, string> = {
    [METADATA.ranchId]: encodeMetadataValue(target.ranchId),
    [METADATA.cameraName]: encodeMetadataValue(target.cameraName),
  };
  // ASCII by construction (r-YYYY_MM-…, v1-<size>-<hex>): the object-created function reads them as sent.
  if (target.reservation) metadata[METADATA.reservation] = target.reservation;
  if (target.fingerprint) metadata[METADATA.fingerprint] = target.fingerprint;
  if (target.form) metadata[METADATA.form] = target.form;
  const photo = target.photo;
  if (!photo) return metadata;
  if (photo.captureTime) metadata[METADATA.captureTime] = encodeMetadataValue(photo.captureTime + (photo.captureOffset ?? ''));
  if (photo.captureTime && photo.cameraCaptureTime) {
    const seconds = captureCorrectionSeconds(photo.captureTime, photo.cameraCaptureTime);
    if (seconds === null) throw new RangeError(`Not a capture time: ${photo.cameraCaptureTime}`);
    if (seconds !== 0) {
      metadata[METADATA.cameraCaptureTime] = encodeMetadataValue(photo.cameraCaptureTime + (photo.captureOffset ?? ''));
      metadata[METADATA.captureCorrection] = formatCaptureCorrection(seconds);
    }
  }
  if (photo.turn && target.form !== 'copy') metadata[METADATA.turn] = String(photo.turn);
  if (photo.make) metadata[METADATA.cameraMake] = encodeMetadataValue(photo.make);
  if (photo.model) metadata[METADATA.cameraModel] = encodeMetadataValue(photo.model);
  if (photo.serial) metadata[METADATA.cameraSerial] = encodeMetadataValue(photo.serial);
  return metadata;
}

/**
 * The object's path (Amplify v6 `path`): `public/<ranchid>/<key>`, or
 * `private/<identityId>/<ranchid>/<key>` for the private level — the layout IAM binds to the
 * caller's ranch (shared/src/uploads/object-key.ts, infra/docs/server.md#trust-on-the-server).
 */
export function objectPath(level: StorageLevel, ranchId: string, key: string, identityId: string | undefined): string {
  return uploadKey(level, ranchId, key, identityId);
}

let storage: Promise<typeof AmplifyStorage> | undefined;

/**
 * Amplify's storage module, loaded with the first upload rather than with the screen: evaluating
 * it is one of the longest tasks on a phone (about 90 ms at 4× CPU), and choosing photos does not
 * need it (docs/federation.md#loading-remotes). A failed load is tried again on the next upload.
 */
export function loadStorage(): Promise<typeof AmplifyStorage> {
  storage ??= import('aws-amplify/storage').catch((error: unknown) => {
    storage = undefined;
    throw error;
  });
  return storage;
}

/**
 * One PUT per image with `uploadData` (docs/product.md#object-storage): content type image/jpg,
 * no-cache, the accelerated endpoint, the metadata of `uploadMetadata`. The ranchid tag is set by
 * the object-created function (infra/src/object-created/handler.ts). Not
 * resumable is v6's default. Abort cancels the transfer. Never an overwrite (`If-None-Match: *`,
 * which the bucket requires): a 412 means an earlier attempt of this photo is stored, and resolves.
 */
export async function amplifyUpload(
  target: UploadTarget,
  job: UploadJob,
  context: { onProgress: (fraction: number) => void; signal: AbortSignal },
): Promise<void> {
  const { uploadData } = await loadStorage();
  // Stopped or stalled while the module loaded: rejects as a cancelled transfer would.
  context.signal.throwIfAborted();
  const operation = uploadData({
    path: ({ identityId }) => objectPath(target.level, target.ranchId, job.key, identityId),
    data: job.file,
    options: {
      contentType: 'image/jpg',
      cacheControl: 'no-cache',
      useAccelerateEndpoint: true,
      preventOverwrite: true,
      // A full-object CRC32: S3 verifies it, and without it Amplify checks a multipart upload's
      // size with a HeadObject, which the upload role may not do (infra/src/upload-access.ts).
      checksumAlgorithm: 'crc-32',
      metadata: uploadMetadata(target),
      onProgress: ({ transferredBytes, totalBytes }) => {
        if (totalBytes) context.onProgress(transferredBytes / totalBytes);
      },
    },
  });
  const cancel = () => operation.cancel();
  context.signal.addEventListener('abort', cancel);
  try {
    await operation.result;
  } catch (error) {
    if (!isAlreadyStored(error)) throw error;
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
