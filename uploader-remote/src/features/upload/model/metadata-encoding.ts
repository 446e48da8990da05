/**
 * S3 user metadata must be US-ASCII; values that are not are sent as RFC 2047 encoded-words. The
 * encoding lives in the shared package (shared/src/uploads/metadata-encoding.ts), because the
 * object-created function decodes the `ranchid` it reads back (infra/src/object-created/handler.ts).
 */
export { decodeMetadataValue, encodeMetadataValue } from '@trailsense/shared/metadata-encoding';
