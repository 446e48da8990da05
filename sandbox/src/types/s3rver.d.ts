// Minimal types for the parts of s3rver (the maintained fork @20minutes/s3rver 4; a Koa app, untyped) the sandbox uses.
declare module '@20minutes/s3rver' {
  import type { IncomingMessage, RequestListener } from 'node:http';

  export interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    headers: Record<string, string | string[] | undefined>;
    status: number;
    body: unknown;
    type: string;
    req: IncomingMessage;
    /** The parsed body, once s3rver's controller parsed it (XML APIs). */
    request: { body?: unknown };
    /** false: Koa leaves the response alone (the middleware answers, or never does). */
    respond: boolean;
    set(field: string, value: string): void;
    get(field: string): string;
  }
  /** An object as s3rver's controllers hand it to the store (models/object.js). */
  export interface StoreObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    /** The request's headers s3rver keeps (S3Object.ALLOWED_METADATA and `x-amz-meta-*`). */
    metadata: Record<string, string>;
  }
  export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

  export interface S3EventRecord {
    eventName: string;
    s3: { bucket: { name: string }; object: { key: string; size?: number } };
  }

  interface S3rverOptions {
    directory: string;
    silent?: boolean;
    address?: string;
    port?: number;
    vhostBuckets?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    middleware: KoaMiddleware[];
    store: {
      getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
      /** The object's bytes `start`..`end` (inclusive) as a stream; null when there is no such object, `content` null when the range is not satisfiable. */
      getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<{ content: NodeJS.ReadableStream | null } | null>;
      putSubresource(bucket: string, key: string, resource: unknown): Promise<void>;
      getSubresource(bucket: string, key: string, type: string): Promise<{ toXML(space?: number): string } | null>;
      deleteSubresource(bucket: string, key: string, type: string): Promise<void>;
      /** Removes the object's files (no event is emitted). */
      deleteObject(bucket: string, key: string): Promise<void>;
      /** `<dir>/<bucket>/<key's folders>/<key's name>._S3rver_<resource>` (`object`, `metadata.json`, `object.md5`; no key: the bucket's own). */
      getResourcePath(bucket: string, key: string | undefined, resource: string): string;
      // The writes, which src/s3-checksum-store.ts replaces with verified ones.
      putObject(object: StoreObject): Promise<{ size: number; md5: string }>;
      putPart(bucket: string, uploadId: string, partNumber: string | number, content: Buffer | NodeJS.ReadableStream): Promise<{ size: number; md5: string }>;
      putObjectMultipart(bucket: string, uploadId: string, parts: { number: number; etag: string }[]): Promise<{ size: number; md5: string }>;
    };
    logger: { close(): void };
    configureBuckets(): Promise<void>;
    callback(): RequestListener;
    on(event: 'event', listener: (event: { Records: S3EventRecord[] }) => void): this;
    on(event: 'error', listener: (err: Error & { status?: number }) => void): this;
  }
}

declare module '@20minutes/s3rver/lib/models/config' {
  export const TaggingConfiguration: { validate(xml: string): unknown };
}

declare module '@20minutes/s3rver/lib/models/error' {
  /** s3rver's S3 error: its error handler answers it as S3 would (status by code, the XML body with `detail`'s elements). */
  export default class S3Error extends Error {
    constructor(code: string, message: string, detail?: Record<string, string>);
    code: string;
    status: number;
  }
}

declare module '@20minutes/s3rver/lib/models/object' {
  import type { StoreObject } from '@20minutes/s3rver';
  /** An object: its metadata filtered to what s3rver keeps. */
  export default class S3Object implements StoreObject {
    constructor(bucket: string, key: string, content: Buffer | NodeJS.ReadableStream | null, metadata: Record<string, string>);
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
    static ALLOWED_METADATA: string[];
  }
}
