/**
 * What S3 checks of a CompleteMultipartUpload, as pure functions: its checksum mode and final
 * checksum headers against the upload's (its CreateMultipartUpload's), and each listed part's
 * ETag and checksum against the part stored. Amplify's multipart upload (photos over 5 MiB) is a
 * FULL_OBJECT CRC32: each UploadPart carries its part's CRC32, the complete request each part's
 * CRC32 in its XML and the whole file's CRC32 in `x-amz-checksum-crc32` with
 * `x-amz-checksum-type: FULL_OBJECT`, which S3 checks against the object it assembles
 * (s3-checksum-store.ts). The words are S3's (sandbox/README.md "Checksums").
 */
import {
  algorithmNamed,
  checksumHeaders,
  invalidHeader,
  invalidRequest,
  isDigestOf,
  one,
  xmlEscape,
  type ChecksumAlgorithm,
  type ChecksumRefusal,
  type Headers,
  type StoredChecksum,
  type UploadChecksum,
} from './s3-checksum-rules';

/** A part as the complete request lists it. */
export interface ListedPart {
  number: number;
  etag: string;
  /** Its `Checksum<ALGORITHM>` elements, by element name (ChecksumCRC32, …). */
  checksums: Record<string, string>;
}

/** A part as stored by UploadPart. */
export interface StoredPart {
  etag: string;
  checksum: StoredChecksum | null;
}

/** What the assembled object must then hash to: the upload's FULL_OBJECT checksum, when the request sent it. */
export interface CompleteChecks {
  expected: { algorithm: ChecksumAlgorithm; value: string } | null;
}

const INVALID_PART =
  "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.";

/** An element's text as fast-xml-parser gives it (a number for digits); anything nested is no text. */
const textOf = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/** The parts of a parsed CompleteMultipartUpload body (fast-xml-parser: one part is an object, several an array). */
export function listedParts(body: unknown): ListedPart[] {
  const root = (body as { CompleteMultipartUpload?: { Part?: unknown } } | null)?.CompleteMultipartUpload?.Part;
  const parts = root === undefined ? [] : [root].flat();
  return parts.map((part) => {
    const fields = (part ?? {}) as Record<string, unknown>;
    const checksums: Record<string, string> = {};
    for (const [name, value] of Object.entries(fields)) if (name.startsWith('Checksum') && name !== 'ChecksumType') checksums[name] = textOf(value);
    return { number: Number(fields['PartNumber']), etag: textOf(fields['ETag']).replace(/"/g, ''), checksums };
  });
}

const modeRefusal = (upload: UploadChecksum | null) =>
  invalidRequest(
    `The upload was created using the ${upload?.type ?? 'null'} checksum mode. The complete request must use the same checksum mode.`,
    'x-amz-checksum-type is not the upload’s',
  );

const mismatch = (upload: UploadChecksum, why: string): ChecksumRefusal => ({
  status: 400,
  code: 'BadDigest',
  message: `The ${upload.algorithm.toLowerCase()} you specified did not match the calculated checksum.`,
  why,
});

/** The request's final checksum headers against the upload's mode: the value to verify, or S3's refusal. */
function finalChecksum(upload: UploadChecksum | null, headers: Headers): CompleteChecks | ChecksumRefusal {
  const type = one(headers, 'x-amz-checksum-type');
  if (type !== undefined && type !== 'FULL_OBJECT' && type !== 'COMPOSITE') return invalidHeader('x-amz-checksum-type');
  if (type !== undefined && type !== upload?.type) return modeRefusal(upload);
  const sent = checksumHeaders(headers);
  if (!Array.isArray(sent)) return sent;
  const [final] = sent;
  // An upload created without a checksum ignores a final one (S3 gives the object its default CRC64NVME).
  if (!final || !upload) return { expected: null };
  const composite = upload.type === 'COMPOSITE' ? /^(.*)-(\d+)$/.exec(final.value) : null;
  if (!isDigestOf(final.algorithm, composite ? (composite[1] as string) : final.value)) return invalidHeader(final.header);
  if (final.algorithm !== upload.algorithm) return mismatch(upload, `a final ${final.algorithm} for a ${upload.algorithm} upload`);
  // As AWS answers it: a FULL_OBJECT upload's final checksum counts only with its mode named.
  if (upload.type === 'FULL_OBJECT' && type === undefined) return mismatch(upload, 'a final checksum without x-amz-checksum-type');
  return { expected: { algorithm: final.algorithm, value: composite ? (composite[1] as string) : final.value } };
}

/** A listed part against the stored one: undefined when S3 takes it. */
function partRefusal(upload: UploadChecksum | null, part: ListedPart, stored: StoredPart | undefined, uploadId: string): ChecksumRefusal | undefined {
  const invalidPart: ChecksumRefusal = {
    status: 400,
    code: 'InvalidPart',
    message: INVALID_PART,
    details: { UploadId: xmlEscape(uploadId), PartNumber: String(part.number), ETag: xmlEscape(part.etag) },
    why: `part ${part.number} is not stored as listed`,
  };
  const sent = Object.entries(part.checksums);
  const bad =
    sent.length > 1 ||
    sent.some(([name, value]) => !algorithmNamed(name.slice('Checksum'.length)) || !isDigestOf(algorithmNamed(name.slice('Checksum'.length))!, value));
  if (bad) {
    const value = sent.length > 1 ? sent.map(([name, v]) => `${name.slice('Checksum'.length)}:${v};`).join('') : (sent[0]?.[1] ?? '');
    return {
      status: 400,
      code: 'InvalidArgument',
      message: 'Invalid Base64 or multiple checksums present in request',
      details: { ArgumentName: 'Checksum', ArgumentValue: xmlEscape(value) },
      why: `part ${part.number}'s checksum is malformed or not one`,
    };
  }
  if (!stored || stored.etag !== part.etag) return invalidPart;
  const [listed] = sent;
  if (!upload) return listed ? invalidPart : undefined;
  if (!listed) {
    if (upload.type === 'FULL_OBJECT') return undefined;
    return invalidRequest(
      `The upload was created using a ${upload.algorithm.toLowerCase()} checksum. The complete request must include the checksum for each part. It was missing for part ${part.number} in the request.`,
      `part ${part.number} without its checksum`,
    );
  }
  const algorithm = algorithmNamed(listed[0].slice('Checksum'.length))!;
  if (algorithm !== upload.algorithm) {
    return {
      status: 400,
      code: 'BadDigest',
      message: `The ${algorithm.toLowerCase()} you specified for part ${part.number} did not match what we received.`,
      why: `part ${part.number} listed with a ${algorithm} in a ${upload.algorithm} upload`,
    };
  }
  return stored.checksum?.value === listed[1] ? undefined : invalidPart;
}

/**
 * S3's checks of a CompleteMultipartUpload before it assembles the object: the parts in
 * ascending order, each stored as listed (ETag, checksum), the checksum mode and final checksum
 * the upload's. Then the object's FULL_OBJECT checksum is verified as it is assembled.
 */
export function completeChecks(
  upload: UploadChecksum | null,
  headers: Headers,
  parts: readonly ListedPart[],
  stored: ReadonlyMap<number, StoredPart>,
  uploadId: string,
): CompleteChecks | ChecksumRefusal {
  const final = finalChecksum(upload, headers);
  if ('status' in final) return final;
  for (const [i, part] of parts.entries()) {
    if (!Number.isInteger(part.number) || (i > 0 && part.number <= (parts[i - 1] as ListedPart).number)) {
      return {
        status: 400,
        code: 'InvalidPartOrder',
        message: 'The list of parts was not in ascending order. Parts must be ordered by part number.',
        details: { UploadId: xmlEscape(uploadId) },
        why: 'the parts are not in ascending order',
      };
    }
    const refusal = partRefusal(upload, part, stored.get(part.number), uploadId);
    if (refusal) return refusal;
  }
  return final;
}

/**
 * A COMPOSITE upload's checksum: the digest of its parts' digests, in order, `-<parts>`; null when
 * a part has none (it cannot happen once completeChecks passed).
 */
export function compositeOf(parts: readonly (StoredChecksum | null)[]): Buffer | null {
  if (parts.some((p) => p === null)) return null;
  return Buffer.concat(parts.map((p) => Buffer.from((p as StoredChecksum).value, 'base64')));
}

export { mismatch as finalMismatch };
