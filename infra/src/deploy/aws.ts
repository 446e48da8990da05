/**
 * The deploy command's adapters on AWS: the hosting bucket through @aws-sdk/client-s3 (list,
 * read a release record or an entry file's copy, put with Content-Type and Cache-Control, delete
 * in batches, the lock's conditional writes) and the distribution through
 * @aws-sdk/client-cloudfront (CreateInvalidation). With an endpoint (an S3-compatible server such
 * as the sandbox's s3rver) requests are path-style.
 */
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { WriteConflictError } from './execute';
import type { CdnPort, ObjectStorePort } from './execute';
import type { LockPort } from './lock';
import type { StoredObject } from './plan';

export interface Target {
  bucket: string;
  /** '' or a key prefix ending in `/`. */
  prefix: string;
}

/** `s3://bucket` or `s3://bucket/some/prefix` → the bucket and the prefix (with a trailing `/`). */
export function parseTarget(text: string): Target {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(text);
  if (!match) throw new Error(`--target must be s3://<bucket>[/<prefix>] with a valid bucket name (got ${JSON.stringify(text)}).`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..'))
    throw new Error(`--target's prefix may not contain . or .. (got ${JSON.stringify(text)}).`);
  return { bucket: match[1] as string, prefix: prefix ? `${prefix}/` : '' };
}

export interface AwsOptions {
  region?: string;
  /** An S3-compatible endpoint (path-style requests). */
  endpoint?: string;
  cloudfrontEndpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Attempts per request, retries included (the SDK's default is 3). */
  maxAttempts?: number;
}

export interface BucketStore extends ObjectStorePort {
  list(): Promise<StoredObject[]>;
  listKeys(under: string): Promise<string[]>;
  getText(key: string): Promise<string>;
  getBytes(key: string): Promise<Buffer>;
  lock: LockPort;
  destroy(): void;
}

/** The HTTP status of an S3 error answer, or undefined for another failure. */
function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

export function s3Store(target: Target, options: AwsOptions): BucketStore {
  const client = new S3Client({
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    // A checksum only where S3 requires one (DeleteObjects): the ETag of a plain PUT stays the
    // content's MD5, which the planner compares, and S3-compatible servers need no trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const { bucket, prefix } = target;

  /** Writes the lock object only if `condition` holds (S3's conditional write: 412 when it does not). */
  async function putLockObject(key: string, body: Buffer, condition: { IfNoneMatch: '*' } | { IfMatch: string }): Promise<void> {
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: prefix + key, Body: body, ContentType: 'application/json', CacheControl: 'no-store', ...condition }),
    );
  }

  async function listRaw(under: string): Promise<StoredObject[]> {
    const found: StoredObject[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + under, ContinuationToken: token }));
      for (const item of page.Contents ?? []) {
        if (!item.Key) continue;
        found.push({
          key: item.Key.slice(prefix.length),
          etag: (item.ETag ?? '').replace(/"/g, '').toLowerCase(),
          size: item.Size ?? 0,
          ...(item.LastModified ? { lastModified: item.LastModified } : {}),
        });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  return {
    list: () => listRaw(''),
    listKeys: async (under) => (await listRaw(under)).map((o) => o.key),
    async getText(key) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }));
      return (await answer.Body?.transformToString('utf-8')) ?? '';
    },
    async getBytes(key) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }));
      return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
    },
    lock: {
      async create(key, body) {
        try {
          await putLockObject(key, body, { IfNoneMatch: '*' });
          return 'created';
        } catch (error) {
          if (statusOf(error) === 412) return 'exists';
          if (statusOf(error) === 409) return 'conflict';
          throw error;
        }
      },
      async replace(key, body, etag) {
        try {
          await putLockObject(key, body, { IfMatch: `"${etag}"` });
          return true;
        } catch (error) {
          // 412: another ETag now; 404: gone; 409: another write of it under way.
          if ([404, 409, 412].includes(statusOf(error) ?? 0)) return false;
          throw error;
        }
      },
      async read(key) {
        try {
          const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }));
          return {
            text: (await answer.Body?.transformToString('utf-8')) ?? '',
            etag: (answer.ETag ?? '').replace(/"/g, ''),
            ...(answer.LastModified ? { lastModified: answer.LastModified } : {}),
          };
        } catch (error) {
          if (statusOf(error) === 404) return undefined;
          throw error;
        }
      },
      async remove(key, etag) {
        try {
          // S3's conditional delete (If-Match): needs s3:GetObject beside s3:DeleteObject.
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key, IfMatch: `"${etag}"` }));
          return 'removed';
        } catch (error) {
          // 412: another ETag now; 409: another conditional write of it under way (a deploy trying to take it); 404: none.
          if (statusOf(error) === 404) return 'gone';
          if (statusOf(error) === 412) return 'changed';
          if (statusOf(error) === 409) return 'conflict';
          throw error;
        }
      },
    },
    async put(key, body, headers, condition) {
      const conditional = condition ? ('ifMatch' in condition ? { IfMatch: `"${condition.ifMatch}"` } : { IfNoneMatch: '*' }) : {};
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: prefix + key,
            Body: body,
            ContentType: headers.contentType,
            CacheControl: headers.cacheControl,
            ...conditional,
          }),
        );
      } catch (error) {
        // 412: the key holds another object (If-Match) or one (If-None-Match); 404: none (If-Match); 409: another write of it under way.
        if (condition && [404, 409, 412].includes(statusOf(error) ?? 0)) throw new WriteConflictError(key);
        throw error;
      }
    },
    async deleteMany(keys) {
      if (keys.length === 0) return;
      const answer = await client.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((key) => ({ Key: prefix + key })), Quiet: true } }),
      );
      const errors = answer.Errors ?? [];
      if (errors.length > 0)
        throw new Error(`${errors.length} object(s) not deleted, first ${errors[0]?.Key}: ${errors[0]?.Code} ${errors[0]?.Message ?? ''}`.trim());
    },
    destroy: () => client.destroy(),
  };
}

export function cloudFrontCdn(distributionId: string, options: AwsOptions): CdnPort & { destroy(): void } {
  const client = new CloudFrontClient({
    // CloudFront is global; its API lives in us-east-1.
    region: 'us-east-1',
    ...(options.cloudfrontEndpoint ? { endpoint: options.cloudfrontEndpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
  });
  return {
    async invalidate(paths, callerReference) {
      const answer = await client.send(
        new CreateInvalidationCommand({
          DistributionId: distributionId,
          InvalidationBatch: { CallerReference: callerReference, Paths: { Quantity: paths.length, Items: paths } },
        }),
      );
      const id = answer.Invalidation?.Id;
      if (!id) throw new Error('CloudFront answered without an invalidation id.');
      return id;
    },
    destroy: () => client.destroy(),
  };
}
