/**
 * The object-created function on the sandbox's S3 (s3.ts): production's own code,
 * `handleObjectCreated` of infra/src/object-created/handler.ts, run on every s3rver ObjectCreated
 * event with sandbox adapters — s3rver's store for the metadata, ranged reads (the first bytes; an
 * original's sampled ranges, which the function fingerprints to verify an upgrade of a copy), the
 * `ranchid` tag and deletes, and the upload ledger and ranches on SQLite (src/ledger.ts).
 */
import type S3rver from '@20minutes/s3rver';
import { TaggingConfiguration } from '@20minutes/s3rver/lib/models/config';
import { encodeEventKey, handleObjectCreated } from '@trailsense/infra/object-created';
import type { ObjectCreatedDeps } from '@trailsense/infra/object-created';
import { RANCH_OBJECT_TAG } from '@trailsense/infra/upload-access';
import { parseUploadKey } from '@trailsense/shared/object-key';
import type { SandboxDb } from './db';
import { sqliteLedger, sqliteRanches } from './ledger';
import { storedChecksumOf } from './s3-checksum-store';

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

export function taggingXml(tags: Record<string, string>): string {
  const tagSet = Object.entries(tags)
    .map(([k, v]) => `<Tag><Key>${xmlEscape(k)}</Key><Value>${xmlEscape(v)}</Value></Tag>`)
    .join('');
  return `<Tagging><TagSet>${tagSet}</TagSet></Tagging>`;
}

/** The stored object's bytes [start, end) (fewer at its end), as a ranged GetObject reads them; null when there is no such object. */
async function readRange(s3rver: S3rver, bucket: string, key: string, start: number, end: number): Promise<Uint8Array | null> {
  const object = await s3rver.store.getObject(bucket, key, { start, end: end - 1 });
  if (!object) return null;
  // No content: an empty object (its range is not satisfiable).
  if (!object.content) return new Uint8Array();
  const chunks: Buffer[] = [];
  for await (const chunk of object.content) chunks.push(Buffer.from(chunk));
  return new Uint8Array(Buffer.concat(chunks).subarray(0, end - start));
}

export interface ObjectCreatedOptions {
  db: SandboxDb;
  log: (line: string) => void;
  /** The ledger's clock of a ranch (milliseconds since the epoch; undefined: a key of no ranch): the month and reservation expiry. */
  ledgerNow: (ranch: string | undefined) => number;
}

/** The object-created function's ports on this sandbox (production: infra/src/object-created/aws.ts for S3, infra/src/ledger/ranches.ts for the ranches). */
export function objectCreatedDeps(s3rver: S3rver, opts: ObjectCreatedOptions): ObjectCreatedDeps {
  return {
    objects: {
      async head(bucket, key) {
        let stored: Record<string, unknown>;
        try {
          stored = await s3rver.store.getMetadata(bucket, key);
        } catch (err) {
          if ((err as { code?: string }).code === 'ENOENT') return null;
          throw err;
        }
        const user: Record<string, string> = {};
        for (const [name, value] of Object.entries(stored)) {
          if (name.startsWith('x-amz-meta-') && typeof value === 'string') user[name.slice('x-amz-meta-'.length)] = value;
        }
        const contentType = stored['content-type'];
        return {
          metadata: user,
          size: Number(stored['content-length'] ?? 0),
          contentType: typeof contentType === 'string' ? contentType : '',
          // What S3 answers a HeadObject with ChecksumMode ENABLED (src/s3-checksum-store.ts keeps it).
          checksum: storedChecksumOf(stored),
        };
      },
      firstBytes: (bucket, key, count) => readRange(s3rver, bucket, key, 0, count),
      range: (bucket, key, start, end) => readRange(s3rver, bucket, key, start, end),
      async putRanchTag(bucket, key, ranchId) {
        await s3rver.store.putSubresource(bucket, key, TaggingConfiguration.validate(taggingXml({ [RANCH_OBJECT_TAG]: ranchId })));
      },
      async remove(bucket, key) {
        await s3rver.store.deleteSubresource(bucket, key, 'tagging');
        await s3rver.store.deleteObject(bucket, key);
      },
    },
    ledger: sqliteLedger(opts.db),
    ranches: sqliteRanches(opts.db),
    clock: { now: () => new Date(opts.ledgerNow(undefined)) },
    log: (line) => opts.log(`[s3] object-created ${JSON.stringify(line)}`),
  };
}

/** The object-created function's runs still under way, which the S3 front lets finish before answering. */
export interface ObjectCreatedRuns {
  pending(): Promise<void>[];
}

/** Runs the object-created function on each of s3rver's ObjectCreated events. */
export function runObjectCreated(s3rver: S3rver, opts: ObjectCreatedOptions): ObjectCreatedRuns {
  const deps = objectCreatedDeps(s3rver, opts);
  const pending = new Set<Promise<void>>();
  s3rver.on('event', (event) => {
    // s3rver's event has one record. Stored now, by the ledger's clock of the key's ranch (the
    // sandbox's clock for the month: src/ledger-clock.ts).
    const ranch = parseUploadKey(event.Records[0]?.s3.object.key ?? '')?.ranchId;
    const clock = { now: () => new Date(opts.ledgerNow(ranch)) };
    const eventTime = clock.now().toISOString();
    // As S3 delivers it: the key URL-encoded.
    const records = event.Records.map((record) => ({
      eventName: record.eventName,
      eventTime,
      s3: { bucket: { name: record.s3.bucket.name }, object: { key: encodeEventKey(record.s3.object.key) } },
    }));
    const work = handleObjectCreated({ Records: records }, { ...deps, clock }).catch((err: unknown) =>
      opts.log(`[s3] object-created function failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });
  return { pending: () => [...pending] };
}
