/**
 * The upload bucket's key layout, which binds an object to a ranch (infra/docs/server.md#trust-on-the-server):
 * - public level:  `public/<ranchid>/<random>.<ext>`
 * - private level: `private/<identity id>/<ranchid>/<random>.<ext>`
 * The uploader writes by it; IAM allows a caller only keys with its own ranch (and identity); the
 * object-created function reads the ranch back from the key (infra/src/upload-access.ts).
 */

/** A ranch id as it may appear in a key: one non-empty path segment of printable ASCII. */
const RANCH_SEGMENT = /^[\x21-\x7e]+$/;

/** Where an object key says it belongs. */
export interface UploadKey {
  level: 'public' | 'private';
  ranchId: string;
  /** The identity id of a private upload. */
  identityId?: string;
  /** The object's own name (the random key and extension). */
  name: string;
}

/** The key an upload is written to (the inverse of `parseUploadKey`). */
export function uploadKey(level: 'public' | 'private', ranchId: string, name: string, identityId?: string): string {
  if (!RANCH_SEGMENT.test(ranchId) || ranchId.includes('/')) throw new Error(`Not a ranch id usable in a key: ${JSON.stringify(ranchId)}`);
  if (level === 'public') return `public/${ranchId}/${name}`;
  if (!identityId) throw new Error('No identity id for a private upload');
  return `private/${identityId}/${ranchId}/${name}`;
}

/** The level, ranch (and identity) an object key carries, or null for a key outside the layout. */
export function parseUploadKey(key: string): UploadKey | null {
  const parts = key.split('/');
  const valid = (ranchId: string | undefined, name: string | undefined) =>
    ranchId !== undefined && RANCH_SEGMENT.test(ranchId) && name !== undefined && name.length > 0;
  if (parts[0] === 'public' && parts.length === 3) {
    const [, ranchId, name] = parts;
    return valid(ranchId, name) ? { level: 'public', ranchId: ranchId!, name: name! } : null;
  }
  if (parts[0] === 'private' && parts.length === 4) {
    const [, identityId, ranchId, name] = parts;
    if (!identityId) return null;
    return valid(ranchId, name) ? { level: 'private', identityId, ranchId: ranchId!, name: name! } : null;
  }
  return null;
}
