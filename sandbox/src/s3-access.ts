/**
 * What IAM would decide for an S3 request made with identity-pool credentials, so the sandbox
 * refuses what AWS refuses (infra/docs/server.md#trust-on-the-server). Pure: the request's
 * method, path-style path and query in; the IAM action, and whether the authenticated role's
 * policy (infra/src/upload-access.ts: UPLOAD_ACTIONS on WRITABLE_KEY_PATTERNS in the upload
 * bucket) allows it for a session's identity and principal tags, out.
 *
 * Not modelled: the bucket policy, SCPs, and conditions other than the key patterns' variables.
 */
import { IDENTITY_VARIABLE, UPLOAD_ACTIONS, WRITABLE_KEY_PATTERNS } from '@trailsense/infra/upload-access';

/** An S3 request as the front middleware sees it (path-style: `/<bucket>/<key>`, still URL-encoded). */
export interface S3Request {
  method: string;
  path: string;
  /** Query parameter names (sub-resources such as `uploads`, `uploadId`, `tagging`) and values. */
  query: Readonly<Record<string, unknown>>;
  /** Lower-case header names. */
  headers?: Readonly<Record<string, unknown>>;
}

/** The IAM action a request needs and the resource it acts on. */
export interface S3Access {
  action: string;
  bucket?: string;
  /** The object key, decoded; absent for a bucket- or service-level request. */
  key?: string;
  /** A second permission the request needs: a copy's `s3:GetObject` on its source. */
  alsoNeeds?: S3Access;
}

/** Who made a request: an identity-pool session (sandbox/src/sessions.ts). */
export interface Principal {
  identityId: string;
  /** Principal tags (from the id token's claims by PRINCIPAL_TAGS). */
  tags: Readonly<Record<string, string>>;
}

const has = (query: S3Request['query'], name: string) => Object.prototype.hasOwnProperty.call(query, name);

/** The object-level sub-resource actions, by method. */
const OBJECT_SUBRESOURCES: Record<string, readonly [string, string][]> = {
  GET: [
    ['uploadId', 's3:ListMultipartUploadParts'],
    ['tagging', 's3:GetObjectTagging'],
    ['acl', 's3:GetObjectAcl'],
    ['retention', 's3:GetObjectRetention'],
    ['legal-hold', 's3:GetObjectLegalHold'],
    ['attributes', 's3:GetObjectAttributes'],
    ['torrent', 's3:GetObjectTorrent'],
  ],
  PUT: [
    ['tagging', 's3:PutObjectTagging'],
    ['acl', 's3:PutObjectAcl'],
    ['retention', 's3:PutObjectRetention'],
    ['legal-hold', 's3:PutObjectLegalHold'],
  ],
  DELETE: [
    ['uploadId', 's3:AbortMultipartUpload'],
    ['tagging', 's3:DeleteObjectTagging'],
  ],
  POST: [
    ['uploads', 's3:PutObject'], // CreateMultipartUpload
    ['uploadId', 's3:PutObject'], // CompleteMultipartUpload
    ['restore', 's3:RestoreObject'],
    ['select', 's3:GetObject'], // SelectObjectContent
  ],
};

const OBJECT_DEFAULT: Record<string, string> = {
  GET: 's3:GetObject',
  HEAD: 's3:GetObject',
  PUT: 's3:PutObject', // PutObject, UploadPart (?partNumber&uploadId), CopyObject
  DELETE: 's3:DeleteObject',
  POST: 's3:PutObject', // a browser-form POST upload
};

const BUCKET_SUBRESOURCES: Record<string, readonly [string, string][]> = {
  GET: [
    ['uploads', 's3:ListBucketMultipartUploads'],
    ['versions', 's3:ListBucketVersions'],
    ['location', 's3:GetBucketLocation'],
    ['cors', 's3:GetBucketCORS'],
    ['policy', 's3:GetBucketPolicy'],
    ['tagging', 's3:GetBucketTagging'],
    ['acl', 's3:GetBucketAcl'],
    ['website', 's3:GetBucketWebsite'],
  ],
  PUT: [
    ['cors', 's3:PutBucketCORS'],
    ['policy', 's3:PutBucketPolicy'],
    ['tagging', 's3:PutBucketTagging'],
    ['acl', 's3:PutBucketAcl'],
    ['website', 's3:PutBucketWebsite'],
  ],
  DELETE: [
    ['cors', 's3:PutBucketCORS'],
    ['policy', 's3:DeleteBucketPolicy'],
    ['tagging', 's3:PutBucketTagging'],
    ['website', 's3:DeleteBucketWebsite'],
  ],
  POST: [['delete', 's3:DeleteObject']], // DeleteObjects: s3:DeleteObject on each key
};

const BUCKET_DEFAULT: Record<string, string> = {
  GET: 's3:ListBucket', // ListObjects(V2)
  HEAD: 's3:ListBucket', // HeadBucket
  PUT: 's3:CreateBucket',
  DELETE: 's3:DeleteBucket',
  POST: 's3:PutObject', // a browser-form POST upload names its key in the form
};

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Why the sandbox's file store cannot take an object key, or undefined when it can. S3 keys are
 * opaque strings, but s3rver writes each object to a file named by its key: a `..` segment
 * (literal or percent-encoded, `%2F` included) would write outside the bucket's folder, and `.`,
 * empty segments and backslashes name files other than the key. The product never makes such
 * keys (infra/src/upload-access.ts), so the sandbox refuses them before s3rver sees them.
 * Service- and bucket-level paths (`/`, `/bucket`, `/bucket/`) have no key and pass.
 */
export function unsafeKeyReason(path: string): string | undefined {
  const segments = path.split('/').slice(2);
  if (segments.length === 0 || (segments.length === 1 && segments[0] === '')) return undefined;
  let parts: string[];
  try {
    parts = segments
      .map((segment) => decodeURIComponent(segment))
      .join('/')
      .split('/');
  } catch {
    return 'the key is not valid percent-encoding';
  }
  if (parts.some((part) => part.includes('\\'))) return 'the key has a backslash';
  if (parts.some((part) => part === '.' || part === '..')) return 'the key has a "." or ".." segment';
  if (parts.some((part) => part === '')) return 'the key has an empty segment';
  if (parts.some((part) => part.includes('\0'))) return 'the key has a NUL character';
  return undefined;
}

/** The IAM action and resource of an S3 request (path-style addressing). */
export function actionOf(request: S3Request): S3Access {
  const method = request.method.toUpperCase();
  const segments = request.path.split('/').slice(1);
  const bucket = segments[0] ? decodeSegment(segments[0]) : undefined;
  const key = segments.length > 1 ? segments.slice(1).map(decodeSegment).join('/') : '';
  if (!bucket) return { action: method === 'GET' ? 's3:ListAllMyBuckets' : `s3:Unknown${method}` };
  const [subresources, defaults] = key ? [OBJECT_SUBRESOURCES, OBJECT_DEFAULT] : [BUCKET_SUBRESOURCES, BUCKET_DEFAULT];
  const sub = (subresources[method] ?? []).find(([name]) => has(request.query, name));
  const action = sub?.[1] ?? defaults[method] ?? `s3:Unknown${method}`;
  if (!key) return { action, bucket };
  // CopyObject and UploadPartCopy also read their source (`/<bucket>/<key>`, URL-encoded).
  const copySource = request.headers?.['x-amz-copy-source'];
  if (method === 'PUT' && action === 's3:PutObject' && typeof copySource === 'string') {
    const source = actionOf({ method: 'GET', path: `/${copySource.replace(/^\//, '').split('?')[0] ?? ''}`, query: {} });
    return { action, bucket, key, alsoNeeds: source };
  }
  return { action, bucket, key };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Resource globbing as IAM does it: `*` any run of characters (slashes too), `?` one. */
function globSource(text: string): string {
  return [...text].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegExp(c))).join('');
}

const VARIABLE = /\$\{([^}]+)\}/g;

/** A policy variable's value for the principal (undefined: none). */
function variableValue(name: string, principal: Principal): string | undefined {
  if (`\${${name}}` === IDENTITY_VARIABLE) return principal.identityId;
  const tag = /^aws:PrincipalTag\/(.+)$/.exec(name);
  return tag ? principal.tags[tag[1] as string] : undefined;
}

/**
 * A key pattern as a matcher for one principal: its policy variables substituted (as literal text,
 * never read as globs), or null when a variable has no value for the principal — IAM then finds
 * no match for the statement, so a caller without a `ranchid` tag may write nothing.
 */
export function keyMatcher(pattern: string, principal: Principal): RegExp | null {
  let source = '';
  let last = 0;
  for (const m of pattern.matchAll(VARIABLE)) {
    const value = variableValue(m[1] as string, principal);
    if (value === undefined || value === '') return null;
    source += globSource(pattern.slice(last, m.index)) + escapeRegExp(value);
    last = m.index + m[0].length;
  }
  source += globSource(pattern.slice(last));
  return new RegExp(`^${source}$`, 's');
}

/** Whether the authenticated role allows the request for this principal on the upload bucket. */
export function isAllowed(access: S3Access, principal: Principal, uploadBucket: string): boolean {
  if (access.bucket !== uploadBucket || access.key === undefined) return false;
  if (!UPLOAD_ACTIONS.includes(access.action)) return false;
  const key = access.key;
  const allowed = WRITABLE_KEY_PATTERNS.some((pattern) => keyMatcher(pattern, principal)?.test(key) === true);
  return allowed && (access.alsoNeeds === undefined || isAllowed(access.alsoNeeds, principal, uploadBucket));
}

/** The session token of a request signed with temporary credentials (header, or a presigned URL's query), if any. */
export function securityTokenOf(request: S3Request): string | undefined {
  const header = request.headers?.['x-amz-security-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = request.query['X-Amz-Security-Token'];
  if (typeof query === 'string' && query !== '') return query;
  return undefined;
}
