/**
 * One ranch's uploads around a ledger, for tests and benchmarks that drive both real handlers —
 * the uploads API (src/uploads-api/handler.ts) and the object-created function
 * (src/object-created/handler.ts) — over any LedgerPort: a bucket in memory (what is stored, what
 * was removed), the ranch table, and a clock that each call may set on its own (two deliveries of
 * one event need not see the same time).
 */
import type { LedgerPort, ObjectChecksum, PhotoForm } from '../../src/ledger/port';
import { encodeEventKey, handleObjectCreated } from '../../src/object-created/handler';
import type { Decision, ObjectCreatedDeps } from '../../src/object-created/handler';
import { handleUploadsApi } from '../../src/uploads-api/handler';
import type { UploadsApiResponse } from '../../src/uploads-api/handler';
import { fingerprintOf } from '../../../test-support/fingerprint';

export const BUCKET = 'uploads';
export const RANCH = 'cedar-creek';

/** How a JPEG starts (the function reads the first three bytes). */
const JPEG_START = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);

/** The bytes of an object stored without its own: 200 KB starting as a JPEG. */
const DEFAULT_BODY = new Uint8Array(204_800);
DEFAULT_BODY.set(JPEG_START);

/** An object in the world's bucket. */
export interface WorldObject {
  metadata: Record<string, string>;
  tags: Record<string, string>;
  /** Its content (default DEFAULT_BODY). */
  bytes?: Uint8Array;
  checksum?: ObjectChecksum;
}

/** How a test stores an object besides its reservation and fingerprint. */
export interface StoreOptions {
  /** Its `photo_form` metadata (none: absent, as an uploader from before copies sends). */
  form?: PhotoForm;
  /** Its content (default: 200 KB starting as a JPEG). */
  bytes?: Uint8Array;
  /** The checksum S3 keeps for it (HeadObject with checksum mode); none by default. */
  checksum?: ObjectChecksum;
}

export class UploadWorld {
  /** What the bucket holds, by key. */
  readonly objects = new Map<string, WorldObject>();
  /** Keys the function removed, in order. */
  readonly removed: string[] = [];
  readonly decisions: Decision[] = [];
  private ids = 0;

  constructor(
    readonly ledger: LedgerPort,
    readonly ceiling: number,
    public now: number,
  ) {}

  /** The uploads API, as `member` (the token's sub) of the ranch, at `at` (default the world's clock). */
  async api(method: string, path: string, member: string, body?: unknown, at = this.now): Promise<UploadsApiResponse> {
    return handleUploadsApi(
      { method, path: `/ranches/${RANCH}${path}`, query: {}, body: body === undefined ? null : JSON.stringify(body), caller: { ranchId: RANCH, sub: member } },
      {
        ledger: this.ledger,
        ranches: { maxMonthlyUploads: async (id) => (id === RANCH ? this.ceiling : null) },
        clock: { now: () => new Date(at) },
        newId: () => `id${String(++this.ids).padStart(14, '0')}`,
      },
      (error) => {
        throw error;
      },
    );
  }

  /** Asks for slots for `fingerprints`; the answer's body. */
  async reserve(member: string, fingerprints: string[], at = this.now) {
    const res = await this.api('POST', '/reservations', member, { fingerprints }, at);
    if (res.status !== 200) throw new Error(`reserve: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { reservation: string | null; granted: string[]; known: string[]; yearmo: string };
  }

  /** An object as the uploader stores it, under `reservation`, with `photo_form` when `form` is given, and `bytes` for content. */
  store(key: string, reservation: string, fingerprint?: string, options: StoreOptions = {}): void {
    this.put(key, { reservation, ...(fingerprint ? { fingerprint } : {}) }, options);
  }

  /** An object sent without a reservation: as the uploader sends an original that upgrades a copy (or a crafted client anything). */
  storeUnreserved(key: string, fingerprint: string, options: StoreOptions = {}): void {
    this.put(key, { fingerprint }, options);
  }

  private put(key: string, metadata: Record<string, string>, options: StoreOptions): void {
    const all: Record<string, string> = { ranchid: RANCH, ...metadata };
    if (options.form) all['photo_form'] = options.form;
    this.objects.set(key, {
      metadata: all,
      tags: {},
      ...(options.bytes ? { bytes: options.bytes } : {}),
      ...(options.checksum ? { checksum: options.checksum } : {}),
    });
  }

  objectDeps(at = this.now): ObjectCreatedDeps {
    return {
      objects: {
        head: async (_bucket, key) => {
          const object = this.objects.get(key);
          return object
            ? { metadata: object.metadata, size: (object.bytes ?? DEFAULT_BODY).length, contentType: 'image/jpg', checksum: object.checksum ?? null }
            : null;
        },
        firstBytes: async (_bucket, key, count) => {
          const object = this.objects.get(key);
          return object ? (object.bytes ?? DEFAULT_BODY).slice(0, count) : null;
        },
        range: async (_bucket, key, start, end) => {
          const object = this.objects.get(key);
          return object ? (object.bytes ?? DEFAULT_BODY).slice(start, end) : null;
        },
        putRanchTag: async (_bucket, key, ranchId) => {
          const object = this.objects.get(key);
          if (object) object.tags['ranchid'] = ranchId;
        },
        remove: async (_bucket, key) => {
          if (this.objects.delete(key)) this.removed.push(key);
        },
      },
      ledger: this.ledger,
      ranches: { maxMonthlyUploads: async (id) => (id === RANCH ? this.ceiling : null) },
      clock: { now: () => new Date(at) },
      log: (line) => this.decisions.push(line),
    };
  }

  /** One delivery of the object's S3 event to the function, at `at`; `storedAt`: the event's time (S3's, when it stored the object), none by default. */
  deliver(key: string, at = this.now, storedAt?: number): Promise<void> {
    const eventTime = storedAt === undefined ? {} : { eventTime: new Date(storedAt).toISOString() };
    return handleObjectCreated(
      { Records: [{ eventName: 'ObjectCreated:Put', ...eventTime, s3: { bucket: { name: BUCKET }, object: { key: encodeEventKey(key) } } }] },
      this.objectDeps(at),
    );
  }
}

/** A well-formed fingerprint, distinct per `i`. */
export const fingerprint = (i: number) => `v1-${200_000 + i}-${i.toString(16).padStart(32, '0')}`;

/** Deterministic bytes that start as a JPEG does, distinct per seed. */
export function photoBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  bytes.set(JPEG_START, 0);
  return bytes;
}

/**
 * A camera's original (3 MB by default: both sampled ranges), its fingerprint as the uploader
 * computes it, and the browser's smaller copy of it: well under its original, as the uploader sends
 * one (the object-created function refuses one that is not: copyFits).
 */
export function photo(seed: number, size = 3 * 1024 * 1024) {
  const original = photoBytes(size, seed);
  return { original, copy: photoBytes(Math.min(400_000, Math.floor(size / 2)), seed + 10_000), fingerprint: fingerprintOf(Buffer.from(original)) };
}
