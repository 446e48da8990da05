/**
 * Fakes of the uploader's side effects (services/uploader-services.ts) for tests of the batch
 * controller and the screen: the product API, analytics, storage, the journal (in memory),
 * the prober, the browser's network, locks, tabs and session. Everything runs on jest's fake
 * clock; nothing here waits on real time.
 */
import type { AnalyticsEvent } from '@trailsense/shared/analytics-events';
import { countingMonth, ranchUploadCeiling } from '@trailsense/shared/quota';
import type { SessionEndReason } from '@trailsense/shared/aws';
import type { ProductApi, UploadsApi } from '../../src/features/upload/services/api/api-client';
import { memoryJournal } from './memory-journal';
import type { PhotoExif } from '../../src/features/upload/model/photo-exif';
import type { UploadTarget } from '../../src/features/upload/services/upload/amplify-storage';
import type { FileProbe } from '../../src/features/upload/services/files/file-probe';
import type { FileProber } from '../../src/features/upload/services/files/file-prober';
import { thumbnailCache } from '../../src/features/upload/services/files/thumbnail-cache';
import { storedPreferences, type PreferenceStorage, type UploaderPreferences } from '../../src/features/upload/services/browser/uploader-preferences';
import type { UploadJob } from '../../src/features/upload/services/upload/upload-engine';
import type { LockPort, TabChannel, TabMessage, UploaderServices } from '../../src/features/upload/services/uploader-services';

const probes = new WeakMap<Blob, FileProbe>();
const gates = new WeakMap<Blob, Promise<void>>();

/**
 * A photo whose probe the fake prober knows: its fingerprint is its content, so the same content
 * under another name is the same photo. The bytes are the content (sizes follow its length).
 */
export function photo(
  name: string,
  content = name,
  options: { notJpeg?: boolean; lastModified?: number; readAfter?: Promise<void>; exif?: PhotoExif } = {},
): File {
  const file = new File([content], name, { type: 'image/jpeg', lastModified: options.lastModified ?? 1 });
  probes.set(file, { kind: 'ok', fingerprint: `v1-${content.length}-${content}`, isJpeg: !options.notJpeg, exif: options.exif ?? null });
  // A slow card: this photo's bytes are read only once `readAfter` settles.
  if (options.readAfter) gates.set(file, options.readAfter);
  return file;
}

export const fakeProber: FileProber = {
  probe: async (file) => {
    await gates.get(file);
    return probes.get(file) ?? { kind: 'unreadable', reason: 'not a test photo' };
  },
  stat: async (files) => files.map((f) => ({ size: f.size, lastModified: (f as File).lastModified })),
  thumbnail: async () => null,
  dispose: () => undefined,
};

/** Locks shared by every "tab" made with the same instance. */
export function fakeLocks(): LockPort {
  const held = new Map<string, (() => void)[]>();
  return {
    acquire(name, signal, onWait) {
      return new Promise((resolve, reject) => {
        const grant = () => {
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            const waiting = held.get(name)!;
            waiting.shift();
            if (waiting.length > 0) waiting[0]!();
            else held.delete(name);
          });
        };
        const queue = held.get(name);
        if (!queue) {
          held.set(name, [grant]);
          return grant();
        }
        onWait();
        queue.push(grant);
        signal.addEventListener('abort', () => {
          const i = queue.indexOf(grant);
          if (i > 0) queue.splice(i, 1);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    },
    tryAcquire(name) {
      if (held.has(name)) return Promise.resolve(null);
      return this.acquire(name, new AbortController().signal, () => undefined);
    },
  };
}

/** A BroadcastChannel between the "tabs" made with the same bus: a message reaches the others. */
export function fakeTabsBus() {
  const members = new Set<(m: TabMessage) => void>();
  return (): TabChannel => {
    const mine = new Set<(m: TabMessage) => void>();
    return {
      post: (message) => {
        for (const deliver of members) if (!mine.has(deliver)) deliver(structuredClone(message));
      },
      subscribe(listener) {
        mine.add(listener);
        members.add(listener);
        return () => {
          mine.delete(listener);
          members.delete(listener);
        };
      },
    };
  };
}

interface PendingUpload {
  job: UploadJob;
  target: UploadTarget;
  resolve: () => void;
  reject: (error: unknown) => void;
  progress: (fraction: number) => void;
  signal: AbortSignal;
}

export interface FakeWorld {
  /** What the fake S3 stored: one entry per key (a second PUT of a key overwrites it). */
  stored: Map<string, UploadTarget>;
  /** What each stored object's EXIF metadata came from (only photos that had EXIF). */
  photos: Map<string, PhotoExif>;
  /** Every PUT sent, in order. */
  puts: string[];
  pending: Map<string, PendingUpload>;
  tracked: AnalyticsEvent[];
  /** Uploads answer by themselves when true; by hand (`pending`) when false. */
  autoAnswer: boolean;
  setOnline(online: boolean): void;
  endSession(why?: SessionEndReason): void;
  /** The computer woke after `sleptMs` (the background clock's wake). */
  wake(sleptMs?: number): void;
  usageTotal: number;
  failUsage: boolean;
  /** The fake uploads API: photos the ranch has on the server (by fingerprint), from any device. */
  serverPhotos: Set<string>;
  /** Of `serverPhotos`, those the ranch has only as smaller copies. */
  serverCopies: Set<string>;
  /** The bytes each PUT sent, by key (the copy's for a copy). */
  bodies: Map<string, Blob>;
  /** Copies asked of the fake copy maker, by the original's size. */
  copiesMade: number[];
  /** Slots granted and not used yet (they count against the ceiling, like the server's live reservations). */
  heldSlots: number;
  /** Every reservation call's fingerprints, in order. */
  reservations: string[][];
  /** Reservations released, in order. */
  released: string[];
  /** The month the fake server says photos count in (default: the clock's UTC month). */
  serverMonth: string | null;
  /** Reservation calls fail with this (a network error, a 5xx) while set. */
  failReserve: Error | null;
  notices: (string | null)[];
}

/** A localStorage stand-in: the preferences' own code runs, in memory. */
export function mapStorage(items = new Map<string, string>()): PreferenceStorage {
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
}

export function fakeServices(
  options: {
    world?: Partial<FakeWorld>;
    api?: Partial<ProductApi>;
    uploads?: Partial<UploadsApi>;
    journal?: ReturnType<typeof memoryJournal>;
    locks?: LockPort;
    tabs?: () => TabChannel;
    ranchMax?: number;
    now?: () => Date;
    /** Another browser's world whose server side (usage, photos, slots) this one shares: two members of one ranch. */
    server?: FakeWorld;
    /** Shared between "visits" to test what is remembered (default: a fresh, empty store). */
    prefs?: UploaderPreferences;
  } = {},
): { services: UploaderServices; world: FakeWorld; journal: ReturnType<typeof memoryJournal> } {
  let online = true;
  const networkListeners = new Set<(online: boolean) => void>();
  const sessionListeners = new Set<(why: SessionEndReason) => void>();
  const wakeListeners = new Set<(sleptMs: number) => void>();
  const world: FakeWorld = {
    stored: new Map(),
    photos: new Map(),
    puts: [],
    pending: new Map(),
    tracked: [],
    autoAnswer: true,
    setOnline(value) {
      online = value;
      for (const l of networkListeners) l(value);
    },
    endSession(why = 'session-ended') {
      for (const l of sessionListeners) l(why);
    },
    wake(sleptMs = 60_000) {
      for (const l of [...wakeListeners]) l(sleptMs);
    },
    usageTotal: 985,
    failUsage: false,
    serverPhotos: new Set(),
    serverCopies: new Set(),
    bodies: new Map(),
    copiesMade: [],
    heldSlots: 0,
    reservations: [],
    released: [],
    serverMonth: null,
    failReserve: null,
    notices: [],
    ...options.world,
  };
  const journal = options.journal ?? memoryJournal();
  // The server side (usage, photos, slots): this world's own, or another member's browser's.
  const server = options.server ?? world;
  let n = 0;
  let reservationCount = 0;
  const now = options.now ?? (() => new Date(Date.now()));
  const ceiling = () => ranchUploadCeiling(options.ranchMax ?? 0);
  const services: UploaderServices = {
    api: {
      getSubscription: async () => ({ subscriber: { entitlements: {} } }),
      getRanch: async () => ({ max_monthly_uploads: options.ranchMax ?? 0 }),
      getCameras: async () => ({ Cameras: [{ id: 'c1', name: 'Windmill Tank' }] }),
      ...options.api,
    },
    uploads: {
      getUploadMetrics: async (_ranchId, yearmo) => {
        if (server.failUsage) throw new Error('Request failed with status 500');
        return { total: String(server.usageTotal), yearmo, month: server.serverMonth ?? countingMonth(now()), reserved: 0, ceiling: ceiling() };
      },
      lookupPhotos: async (_ranchId, fingerprints) => ({
        known: fingerprints.filter((f) => server.serverPhotos.has(f)),
        copies: fingerprints.filter((f) => server.serverCopies.has(f)),
      }),
      lookupSizes: async (_ranchId, sizes) => {
        const held = new Set([...server.serverPhotos].map((f) => Number(f.split('-')[1])));
        return { knownSizes: sizes.filter((s) => held.has(s)) };
      },
      reserve: async (_ranchId, fingerprints) => {
        server.reservations.push([...fingerprints]);
        if (server.failReserve) throw server.failReserve;
        const known = fingerprints.filter((f) => server.serverPhotos.has(f));
        const asked = fingerprints.filter((f) => !server.serverPhotos.has(f));
        const granted = asked.slice(0, Math.max(0, ceiling() - server.usageTotal - server.heldSlots));
        server.heldSlots += granted.length;
        const month = server.serverMonth ?? countingMonth(now());
        return {
          reservation: granted.length > 0 ? `r-${month}-fakereservation${++reservationCount}` : null,
          yearmo: month,
          known,
          copies: known.filter((f) => server.serverCopies.has(f)),
          granted,
          expiresAt: granted.length > 0 ? new Date(now().getTime() + 900_000).toISOString() : null,
          lifetimeSeconds: 900,
        };
      },
      renew: async (_ranchId, reservation) => ({ reservation, expiresAt: new Date(now().getTime() + 900_000).toISOString() }),
      release: async (_ranchId, reservation) => {
        server.released.push(reservation);
        const released = server.heldSlots;
        server.heldSlots = 0;
        return { reservation, released };
      },
      ...options.uploads,
    },
    analytics: { track: async (e) => void world.tracked.push(e) },
    journal,
    prober: fakeProber,
    // A copy an eighth of the photo's size (at least 1 byte); files of 1 KB or less are "small".
    copies: {
      make: async (file, _exif, signal) => {
        signal?.throwIfAborted();
        world.copiesMade.push(file.size);
        if (file.size <= 1024) return { kind: 'original', reason: 'small' };
        return { kind: 'copy', blob: new Blob([new Uint8Array(Math.max(1, Math.floor(file.size / 8)))], { type: 'image/jpeg' }), width: 2048, height: 1536 };
      },
      dispose: () => undefined,
    },
    prefs: options.prefs ?? storedPreferences(mapStorage()),
    thumbnails: thumbnailCache(async () => null),
    upload: (target, job, { signal, onProgress }) =>
      new Promise<void>((resolve, reject) => {
        world.puts.push(job.key);
        world.bodies.set(job.key, job.file);
        const done = () => world.pending.delete(job.id);
        const succeed = () => {
          done();
          const { photo: exif, ...where } = target;
          world.stored.set(job.key, where);
          if (exif) world.photos.set(job.key, exif);
          const fingerprint = target.fingerprint;
          // The original of a photo the ranch has as a copy: not counted again (infra/docs/server.md#the-ledger).
          if (fingerprint && target.form !== 'copy' && server.serverCopies.has(fingerprint)) {
            server.serverCopies.delete(fingerprint);
            return resolve();
          }
          server.usageTotal++;
          // The server counts it against its slot, and knows the photo from now on.
          if (target.reservation) server.heldSlots = Math.max(0, server.heldSlots - 1);
          if (fingerprint) server.serverPhotos.add(fingerprint);
          if (fingerprint && target.form === 'copy') server.serverCopies.add(fingerprint);
          resolve();
        };
        if (world.autoAnswer) return void Promise.resolve().then(succeed);
        world.pending.set(job.id, { job, target, resolve: succeed, reject: (e) => (done(), reject(e)), progress: onProgress, signal });
        signal.addEventListener('abort', () => (done(), reject(Object.assign(new Error('canceled'), { name: 'CanceledError' }))));
      }),
    refreshCredentials: async () => undefined,
    wakeLock: { request: null, visible: () => true, onVisible: () => () => undefined },
    notifications: { permission: () => 'unsupported', request: async () => 'unsupported', show: () => undefined },
    network: {
      online: () => online,
      subscribe: (l) => (networkListeners.add(l), () => networkListeners.delete(l)),
    },
    locks: options.locks ?? fakeLocks(),
    tabs: (options.tabs ?? fakeTabsBus())(),
    session: { subscribe: (l) => (sessionListeners.add(l), () => sessionListeners.delete(l)) },
    newId: () => `id-${++n}`,
    now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()));
      }),
    timers: { setTimeout: (cb, ms) => setTimeout(cb, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
    wakes: { subscribe: (l) => (wakeListeners.add(l), () => void wakeListeners.delete(l)) },
    random: () => 0.5,
    setPausedWorkNotice: (text) => void world.notices.push(text),
    logError: jest.fn(),
    retry: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 4000 },
    stallMs: 60_000,
  };
  return { services, world, journal };
}
