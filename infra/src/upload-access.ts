/**
 * Who may write what in the upload bucket, as data: the one definition the production stack turns
 * into the identity pool's authenticated-role policy (src/stacks/) and the sandbox evaluates on
 * every S3 request made with identity-pool credentials (sandbox/src/s3-access.ts), so a browser
 * test that uploads goes through the very rules AWS would apply (infra/docs/server.md#trust-on-the-server).
 *
 * The threat: the browser holds temporary AWS credentials and can send any metadata it likes
 * (IAM cannot constrain `x-amz-meta-*` values). So the ranch an upload counts against is bound by
 * the object's KEY, which IAM does constrain: the key must start with the caller's ranch, taken
 * from the `ranchid` principal tag that the identity pool copies from the id token's
 * `custom:ranchid` claim — an attribute only the back end can write (the web client may write only
 * name, phone_number and email). The object-created function reads the ranch from the key, never
 * from the metadata alone.
 *
 * Key layout: shared/src/uploads/object-key.ts (the uploader writes by it, the function reads by it).
 */

/**
 * The response headers of the upload bucket a page may read (its CORS ExposeHeaders; the sandbox's
 * S3 exposes the same, sandbox/src/s3.ts): ETag for multipart uploads, S3's request ids for
 * support, and `Date`, from which Amplify corrects its signing clock when S3 answers
 * RequestTimeTooSkewed — without it, a computer whose clock is more than 15 minutes off fails
 * every upload.
 */
export const UPLOAD_EXPOSED_HEADERS = ['ETag', 'Date', 'x-amz-server-side-encryption', 'x-amz-request-id', 'x-amz-id-2'] as const;

/** The principal tag that carries the caller's ranch, and the id-token claim it is copied from. */
export const RANCH_PRINCIPAL_TAG = 'ranchid';
export const RANCH_CLAIM = 'custom:ranchid';
/** Identity pool principal-tag map for the user-pool provider (CfnIdentityPoolPrincipalTag.principalTags). */
export const PRINCIPAL_TAGS: Readonly<Record<string, string>> = { [RANCH_PRINCIPAL_TAG]: RANCH_CLAIM };

/** The IAM policy variables the key patterns use. */
export const RANCH_VARIABLE = `\${aws:PrincipalTag/${RANCH_PRINCIPAL_TAG}}`;
export const IDENTITY_VARIABLE = '${cognito-identity.amazonaws.com:sub}';

/**
 * The object-key patterns (relative to the bucket) the authenticated role may write, with IAM
 * policy variables. A caller without a `ranchid` tag matches neither: IAM treats a statement whose
 * variable cannot be resolved as not matching, so a user without a ranch can write nothing.
 */
export const WRITABLE_KEY_PATTERNS: readonly string[] = [`public/${RANCH_VARIABLE}/*`, `private/${IDENTITY_VARIABLE}/${RANCH_VARIABLE}/*`];

/**
 * What the authenticated role may do on those keys: put (which also covers CreateMultipartUpload,
 * UploadPart and CompleteMultipartUpload), abort its multipart upload, and list the parts of one
 * (Amplify resumes a multipart upload by ListParts). Never get, list the bucket, or delete.
 */
export const UPLOAD_ACTIONS: readonly string[] = ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'];

/** An object write, as the bucket policy tells them apart (`s3:ObjectCreationOperation` is false for the multipart steps that take no condition). */
export type ObjectWrite = 'PutObject' | 'CreateMultipartUpload' | 'UploadPart' | 'CompleteMultipartUpload';

/**
 * Why the upload bucket's policy denies an object write, whoever makes it (undefined: it does
 * not): the denials of src/stacks/uploads-stack.ts `uploadBucketDenials`, as data the sandbox
 * applies to identity-pool sessions' writes (sandbox/src/s3.ts) — infra/docs/server.md#trust-on-the-server.
 * `header` answers a request header by its lower-case name.
 */
export function bucketPolicyDenial(write: ObjectWrite, header: (name: string) => string | undefined): string | undefined {
  if (header('x-amz-server-side-encryption-customer-algorithm') !== undefined) return 'an object encrypted with a customer key (SSE-C) is denied';
  const storageClass = header('x-amz-storage-class');
  if (storageClass !== undefined && storageClass !== 'STANDARD') return `the storage class ${storageClass} is denied (STANDARD only)`;
  // The ledger counts a key once: a write that could replace a stored object must be conditional.
  if ((write === 'PutObject' || write === 'CompleteMultipartUpload') && header('if-none-match') === undefined)
    return 'a write without If-None-Match is denied (no overwrites)';
  return undefined;
}

/** The tag the object-created function sets on every counted object. */
export const RANCH_OBJECT_TAG = 'ranchid';

export { parseUploadKey, uploadKey } from '@trailsense/shared/object-key';
export type { UploadKey } from '@trailsense/shared/object-key';
