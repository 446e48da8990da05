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
    /** false: Koa leaves the response alone (the middleware answers, or never does). */
    respond: boolean;
    set(field: string, value: string): void;
    get(field: string): string;
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
