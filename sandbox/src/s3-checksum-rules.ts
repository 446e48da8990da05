/**
 * S3's checksum rules for a write, as pure functions over its headers (and, for a multipart
 * upload, what its creation asked for): which checksum a PutObject or UploadPart carries, whether
 * S3 would refuse its headers before reading a byte, and the words of every refusal — S3's own,
 * as AWS answers them (sandbox/README.md "Checksums" lists them and what is not emulated). The
 * bytes themselves are hashed by s3-checksum-store.ts, which refuses a mismatch with `badDigest`.
 */

/** The algorithms of `x-amz-checksum-<algorithm>` the sandbox verifies, and the bytes of each digest. */
export const DIGEST_BYTES = { CRC32: 4, CRC32C: 4, CRC64NVME: 8, MD5: 16, SHA1: 20, SHA256: 32, SHA512: 64 } as const;
export type ChecksumAlgorithm = keyof typeof DIGEST_BYTES;

/** What S3 accepts and the sandbox does not emulate (S3 added them in 2025; no client of the product sends them). */
const NOT_EMULATED = ['XXHASH128', 'XXHASH3', 'XXHASH64'] as const;

/** Every algorithm S3 names in its refusal of an unknown one, in its order. */
const S3_ALGORITHMS = ['CRC32', 'CRC32C', 'CRC64NVME', 'MD5', 'SHA1', 'SHA256', 'SHA512', ...NOT_EMULATED];

/** FULL_OBJECT: a checksum of the whole object; COMPOSITE: a multipart upload's checksum of its parts' checksums, `<base64>-<parts>`. */
export type ChecksumType = 'FULL_OBJECT' | 'COMPOSITE';

/** A stored object's (or part's) checksum, as S3 answers it with `x-amz-checksum-mode: ENABLED`. */
export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
  /** Base64 of the digest; a COMPOSITE one ends in `-<parts>`. */
  value: string;
}

/** A refusal in S3's words: its status, code, message and detail elements (values XML-escaped). */
export interface ChecksumRefusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, string>;
  /** Why, for the sandbox's log. */
  why: string;
}

/** S3's algorithm of a name (`crc32`, `CRC32`), or undefined. */
export function algorithmNamed(name: string): ChecksumAlgorithm | undefined {
  const upper = name.toUpperCase();
  return upper in DIGEST_BYTES ? (upper as ChecksumAlgorithm) : undefined;
}

/** The response header of an algorithm's checksum: `x-amz-checksum-crc32`. */
export const checksumHeader = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm.toLowerCase()}`;

/** Whether `value` is the canonical base64 of a digest of `algorithm` (S3 refuses anything else). */
export function isDigestOf(algorithm: ChecksumAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === DIGEST_BYTES[algorithm] && bytes.toString('base64') === value;
}

const xmlEscape = (text: string) => text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);

const invalidRequest = (message: string, why: string): ChecksumRefusal => ({ status: 400, code: 'InvalidRequest', message, why });
const invalidHeader = (header: string) => invalidRequest(`Value for ${header} header is invalid.`, `${header} is not a valid value`);
const notEmulated = (what: string): ChecksumRefusal => ({
  status: 501,
  code: 'NotImplemented',
  message: `The sandbox does not emulate ${what}; send the checksum in an x-amz-checksum-crc32 (or -crc32c, -crc64nvme, -sha1, -sha256) header.`,
  why: `${what}: not emulated`,
});
const unsupportedAlgorithm = (value: string) =>
  invalidRequest(
    `Checksum algorithm provided is unsupported. Please try again with any of the valid types: [${S3_ALGORITHMS.join(', ')}]`,
    `the checksum algorithm ${JSON.stringify(value)} is not one S3 knows`,
  );

/** A header's value as one string (a repeated header arrives joined by ", ", which no digest is). */
type Headers = Readonly<Record<string, string | string[] | undefined>>;
const one = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** What a PutObject or UploadPart asks S3 to verify. */
export interface WriteChecks {
  /** The `x-amz-checksum-<algorithm>` the client sent, or null. */
  checksum: { algorithm: ChecksumAlgorithm; value: string } | null;
  /** The `Content-MD5` digest the client sent (base64), or null. */
  contentMd5: string | null;
}

/**
 * Payloads the sandbox does not decode: aws-chunked with a trailer (the checksum after the body),
 * unsigned or signed, and any other streaming signature but SigV4's (which s3rver decodes).
 */
function streamingRefusal(headers: Headers): ChecksumRefusal | undefined {
  const payload = one(headers, 'x-amz-content-sha256') ?? '';
  if (one(headers, 'x-amz-trailer') !== undefined || payload.endsWith('-TRAILER')) return notEmulated('trailing checksums (aws-chunked with x-amz-trailer)');
  if (payload.startsWith('STREAMING-') && payload !== 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD') return notEmulated(`the ${payload} payload`);
  return undefined;
}

/**
 * The checksum headers of a write (PutObject, UploadPart, and CompleteMultipartUpload's final
 * checksum), as S3 parses them: `x-amz-checksum-type` and `-algorithm` aside, each names an
 * algorithm, and at most one may be sent.
 */
function checksumHeaders(headers: Headers): { algorithm: ChecksumAlgorithm; header: string; value: string }[] | ChecksumRefusal {
  const found: { algorithm: ChecksumAlgorithm; header: string; value: string }[] = [];
  for (const name of Object.keys(headers)) {
    if (!name.startsWith('x-amz-checksum-') || name === 'x-amz-checksum-type' || name === 'x-amz-checksum-algorithm') continue;
    const suffix = name.slice('x-amz-checksum-'.length).toUpperCase();
    if ((NOT_EMULATED as readonly string[]).includes(suffix)) return notEmulated(`the ${suffix} checksum algorithm`);
    const algorithm = algorithmNamed(suffix);
    if (!algorithm) return invalidRequest('The algorithm type you specified in x-amz-checksum- header is invalid.', `${name} names no algorithm`);
    found.push({ algorithm, header: name, value: one(headers, name) ?? '' });
  }
  if (found.length > 1) {
    return invalidRequest(
      'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
      `${found.map((f) => f.header).join(', ')} at once`,
    );
  }
  return found;
}

/** What S3 checks of a PutObject's or UploadPart's headers, before a byte of the body: the checks it then makes of the body, or its refusal. */
export function writeChecks(headers: Headers): WriteChecks | ChecksumRefusal {
  const streaming = streamingRefusal(headers);
  if (streaming) return streaming;
  const sdk = one(headers, 'x-amz-sdk-checksum-algorithm');
  const sdkAlgorithm = sdk === undefined ? undefined : algorithmNamed(sdk);
  if (sdk !== undefined && !sdkAlgorithm) {
    return (NOT_EMULATED as readonly string[]).includes(sdk.toUpperCase())
      ? notEmulated(`the ${sdk.toUpperCase()} checksum algorithm`)
      : unsupportedAlgorithm(sdk);
  }
  const sent = checksumHeaders(headers);
  if (!Array.isArray(sent)) return sent;
  const [checksum] = sent;
  if (sdkAlgorithm && !checksum) {
    return invalidRequest(
      'x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.',
      `x-amz-sdk-checksum-algorithm ${sdk} without its checksum`,
    );
  }
  if (checksum && !isDigestOf(checksum.algorithm, checksum.value)) return invalidHeader(checksum.header);
  if (checksum && sdkAlgorithm && sdkAlgorithm !== checksum.algorithm) return invalidHeader('x-amz-sdk-checksum-algorithm');
  const md5 = one(headers, 'content-md5');
  if (md5 !== undefined && !isDigestOf('MD5', md5.trim())) {
    return {
      status: 400,
      code: 'InvalidDigest',
      message: 'The Content-MD5 you specified was invalid.',
      details: { 'Content-MD5': xmlEscape(md5) },
      why: 'Content-MD5 is not the base64 of 16 bytes',
    };
  }
  return { checksum: checksum ? { algorithm: checksum.algorithm, value: checksum.value } : null, contentMd5: md5 === undefined ? null : md5.trim() };
}

/** The checksum S3 computes a multipart upload with, from its CreateMultipartUpload: null when it asked for none. */
export interface UploadChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
}

/** What CreateMultipartUpload's `x-amz-checksum-algorithm` and `-type` ask for, or S3's refusal. */
export function uploadChecksum(headers: Headers): UploadChecksum | null | ChecksumRefusal {
  const streaming = streamingRefusal(headers);
  if (streaming) return streaming;
  const name = one(headers, 'x-amz-checksum-algorithm');
  const type = one(headers, 'x-amz-checksum-type');
  if (name === undefined) {
    return type === undefined
      ? null
      : invalidRequest('The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.', 'x-amz-checksum-type alone');
  }
  const algorithm = algorithmNamed(name);
  if (!algorithm)
    return (NOT_EMULATED as readonly string[]).includes(name.toUpperCase())
      ? notEmulated(`the ${name.toUpperCase()} checksum algorithm`)
      : unsupportedAlgorithm(name);
  if (type !== undefined && type !== 'FULL_OBJECT' && type !== 'COMPOSITE') return invalidHeader('x-amz-checksum-type');
  const chosen: ChecksumType = type ?? (algorithm === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE');
  if (chosen === 'COMPOSITE' && algorithm === 'CRC64NVME') {
    return invalidRequest('The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.', 'COMPOSITE with CRC64NVME');
  }
  if (chosen === 'FULL_OBJECT' && !algorithm.startsWith('CRC')) {
    return invalidRequest(
      `The FULL_OBJECT checksum type cannot be used with the ${algorithm.toLowerCase()} checksum algorithm.`,
      `FULL_OBJECT with ${algorithm}`,
    );
  }
  return { algorithm, type: chosen };
}

/** An UploadPart's checksum against its upload's: S3 wants the upload's algorithm, and a part of a COMPOSITE upload must carry it. */
export function partChecksumRefusal(upload: UploadChecksum | null, part: WriteChecks): ChecksumRefusal | undefined {
  if (!upload) return undefined;
  const sent = part.checksum?.algorithm;
  // A FULL_OBJECT upload's part may come without: S3 computes its checksum.
  if (sent === undefined && upload.type === 'FULL_OBJECT') return undefined;
  if (sent === upload.algorithm) return undefined;
  return invalidRequest(
    `Checksum Type mismatch occurred, expected checksum Type: ${upload.algorithm.toLowerCase()}, actual checksum Type: ${sent?.toLowerCase() ?? 'null'}`,
    `a ${sent ?? 'checksum-less'} part of a ${upload.algorithm} upload`,
  );
}

/** The refusal of a body whose digest is not the one the client sent (PutObject, UploadPart). */
export function badDigest(algorithm: ChecksumAlgorithm): ChecksumRefusal {
  return {
    status: 400,
    code: 'BadDigest',
    message: `The ${algorithm} you specified did not match the calculated checksum.`,
    why: `the body's ${algorithm} is not the one sent`,
  };
}

/** The refusal of a body whose MD5 is not its `Content-MD5` (S3 gives the expected digest in hex, the calculated in base64). */
export function badContentMd5(expectedBase64: string, calculatedBase64: string): ChecksumRefusal {
  return {
    status: 400,
    code: 'BadDigest',
    message: 'The Content-MD5 you specified did not match what we received.',
    details: { ExpectedDigest: Buffer.from(expectedBase64, 'base64').toString('hex'), CalculatedDigest: calculatedBase64 },
    why: "the body's MD5 is not its Content-MD5",
  };
}

export { invalidHeader, invalidRequest, notEmulated, xmlEscape, checksumHeaders, one };
export type { Headers };
