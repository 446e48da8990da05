/**
 * @jest-environment node
 */
// Upload slots from the server (controller/stages/admit/slot-broker.ts) and the slice planner (model/slice-plan.ts),
// against a fake uploads API, on jest's fake clock.
import { ApiRequestError } from '../src/features/upload/services/api/api-client';
import type { ReservationResponse, UploadsApi } from '../src/features/upload/services/api/api-client';
import { UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import { MAX_TOLD_WAIT_MS, SlotBroker } from '../src/features/upload/controller/stages/admit/slot-broker';
import { serverWaitMessage } from '../src/features/upload/model/messages';
import { DEFAULT_SLICE, MAX_SLICE, MIN_SLICE, nextSlice, sliceSize } from '../src/features/upload/model/slice-plan';

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-21T22:00:00Z') }));
afterEach(() => jest.useRealTimers());

describe('sliceSize', () => {
  it('asks for about ten minutes of sending, within 20 and 500 photos; 50 before any speed is measured', () => {
    expect(sliceSize(null, 3_000_000)).toBe(DEFAULT_SLICE);
    // 10 Mbit/s and 3 MB photos: 1.25 MB/s × 600 s / 3 MB = 250.
    expect(sliceSize(1_250_000, 3_000_000)).toBe(250);
    expect(sliceSize(10_000, 3_000_000)).toBe(MIN_SLICE);
    expect(sliceSize(100_000_000, 3_000_000)).toBe(MAX_SLICE);
    expect(sliceSize(0, 3_000_000)).toBe(DEFAULT_SLICE);
    expect(sliceSize(1_000_000, 0)).toBe(DEFAULT_SLICE);
  });
});

describe('nextSlice', () => {
  it('starts with the photo about to be sent, then the upcoming ones in order, each once, none settled, up to the size', () => {
    const settled = new Set(['b']);
    expect(nextSlice('a', ['a', 'b', 'c', 'c', 'd', 'e'], (f) => settled.has(f), 3)).toEqual(['a', 'c', 'd']);
    expect(nextSlice('a', [], () => false, 50)).toEqual(['a']);
  });
});

/** A fake uploads API with a ranch ceiling: counts reservations, grants in order, remembers what it has. */
function fakeServer(room: number, known: string[] = [], copies: string[] = []) {
  const have = new Set([...known, ...copies]);
  let left = room;
  let n = 0;
  const calls: { kind: string; arg: unknown }[] = [];
  const failures: Error[] = [];
  const api: UploadsApi = {
    getUploadMetrics: async () => ({ total: '0' }),
    lookupPhotos: async (_r, fps) => ({ known: fps.filter((f) => have.has(f)) }),
    lookupSizes: async () => ({ knownSizes: [] }),
    reserve: async (_r, fps): Promise<ReservationResponse> => {
      calls.push({ kind: 'reserve', arg: [...fps] });
      const failure = failures.shift();
      if (failure) throw failure;
      const granted = fps.filter((f) => !have.has(f)).slice(0, left);
      left -= granted.length;
      return {
        reservation: granted.length > 0 ? `r-2026_11-reservation${String(++n).padStart(8, '0')}` : null,
        yearmo: '2026_11',
        known: fps.filter((f) => have.has(f)),
        copies: fps.filter((f) => copies.includes(f)),
        granted,
        expiresAt: null,
        lifetimeSeconds: 900,
      };
    },
    renew: jest.fn(async (_r: string, reservation: string) => {
      calls.push({ kind: 'renew', arg: reservation });
      return { reservation, expiresAt: new Date(Date.now() + 900_000).toISOString() };
    }),
    release: jest.fn(async (_r: string, reservation: string) => {
      calls.push({ kind: 'release', arg: reservation });
      return { reservation, released: 0 };
    }),
  };
  return { api, calls, failures };
}

function broker(api: UploadsApi, upcoming: string[], size = 50, onServerWait?: (until: number | null, why?: string) => void) {
  const months: string[] = [];
  const logError = jest.fn();
  const b = new SlotBroker({
    api,
    ranchId: 'mesquite-flats',
    upcoming: () => upcoming,
    sliceSize: () => size,
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    onMonth: (m) => void months.push(m),
    ...(onServerWait ? { onServerWait } : {}),
    logError,
  });
  return { b, months, logError };
}

const fps = (n: number) => Array.from({ length: n }, (_, i) => `v1-1-${String(i).padStart(32, '0')}`);

describe('SlotBroker', () => {
  it('tells a photo the ranch has only as a copy from one it has, and asks no slot for either', async () => {
    const photos = fps(4);
    const server = fakeServer(100, [photos[1]!], [photos[2]!]);
    const { b } = broker(server.api, photos);
    const answers = await Promise.all(photos.map((f) => b.take(f)));
    expect(answers).toEqual([
      { kind: 'slot', reservation: expect.any(String) as unknown },
      { kind: 'known', form: 'original' },
      { kind: 'known', form: 'copy' },
      { kind: 'slot', reservation: expect.any(String) as unknown },
    ]);
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(1);
  });

  it('asks once for a slice shared by concurrent photos, and hands each its slot', async () => {
    const server = fakeServer(100);
    const photos = fps(10);
    const { b, months } = broker(server.api, photos);
    const answers = await Promise.all(photos.slice(0, 3).map((f) => b.take(f)));
    expect(answers.map((a) => a.kind)).toEqual(['slot', 'slot', 'slot']);
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(1);
    expect(server.calls[0]!.arg).toEqual(photos);
    expect(months).toEqual(['2026_11']);
    // The rest of the slice is granted already: no further call.
    for (const f of photos.slice(3)) expect((await b.take(f)).kind).toBe('slot');
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(1);
  });

  it('photos whose fingerprints the list does not know yet each get a slot, however many asks they wait behind', async () => {
    // Upload clicked while the background checks still run: the list has no fingerprints, so each
    // ask covers one photo, and six concurrent photos wait behind up to five others' asks.
    const server = fakeServer(100);
    const photos = fps(6);
    const { b } = broker(server.api, []);
    const answers = await Promise.all(photos.map((f) => b.take(f)));
    expect(answers.map((a) => a.kind)).toEqual(Array(6).fill('slot'));
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(6);
  });

  it('asks a slice at a time, not the whole card', async () => {
    const server = fakeServer(1000);
    const photos = fps(120);
    const { b } = broker(server.api, photos, 50);
    for (const f of photos) await b.take(f);
    expect(server.calls.filter((c) => c.kind === 'reserve').map((c) => (c.arg as string[]).length)).toEqual([50, 50, 20]);
  });

  it('a partial grant: the first photos get slots, the others are refused (the monthly limit), and are not asked again', async () => {
    const server = fakeServer(15);
    const photos = fps(20);
    const { b } = broker(server.api, photos);
    const answers = [];
    for (const f of photos) answers.push((await b.take(f)).kind);
    expect(answers).toEqual([...Array(15).fill('slot'), ...Array(5).fill('limit')]);
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(1);
  });

  it("photos the member's share held back (shareLimited) are not refused: each is asked for again when its turn comes", async () => {
    const server = fakeServer(100);
    // The server grants at most 3 at a time, saying it was the member's share.
    const reserve = server.api.reserve.bind(server.api);
    server.api.reserve = async (r, asked) => ({ ...(await reserve(r, asked.slice(0, 3))), shareLimited: true });
    const photos = fps(7);
    const { b } = broker(server.api, photos);
    const answers = [];
    for (const f of photos) answers.push((await b.take(f)).kind);
    expect(answers).toEqual(Array(7).fill('slot'));
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(3);
  });

  it('photos the ranch already has are answered known, from the same call', async () => {
    const photos = fps(4);
    const server = fakeServer(10, [photos[1]!, photos[3]!]);
    const { b } = broker(server.api, photos);
    const answers = [];
    for (const f of photos) answers.push((await b.take(f)).kind);
    expect(answers).toEqual(['slot', 'known', 'slot', 'known']);
  });

  it('tries a failed call again after 1 s and 3 s (the network, a 5xx), then says unavailable; a 4xx is final', async () => {
    const server = fakeServer(10);
    const network = new ApiRequestError({ kind: 'network', message: 'Network Error' });
    server.failures.push(network, network);
    const { b } = broker(server.api, fps(2));
    const answer = b.take(fps(2)[0]!);
    await jest.advanceTimersByTimeAsync(999);
    expect(server.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(server.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(3000);
    expect((await answer).kind).toBe('slot');

    const server2 = fakeServer(10);
    server2.failures.push(new ApiRequestError({ kind: 'http', status: 400, message: 'bad' }));
    const second = broker(server2.api, fps(2)).b;
    expect(await second.take(fps(2)[0]!)).toEqual({ kind: 'unavailable', reason: 'bad' });
    expect(server2.calls).toHaveLength(1);
  });

  it('a 429 that says Retry-After is waited out as told, with the wait said, then asked again', async () => {
    const server = fakeServer(10);
    const edge = UPLOADS_EDGE_ANSWERS.rateLimited;
    const told = new ApiRequestError({ kind: 'http', status: edge.status, message: edge.message, retryAfterMs: edge.retryAfterSeconds * 1000 });
    server.failures.push(told, told);
    const waits: (number | null)[] = [];
    const { b } = broker(server.api, fps(2), 50, (until) => void waits.push(until === null ? null : until - Date.now()));
    const answer = b.take(fps(2)[0]!);
    // Not the 1 s of a network failure: the minute the firewall named, twice (not counted against the two retries).
    await jest.advanceTimersByTimeAsync(59_999);
    expect(server.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(server.calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(60_000);
    expect((await answer).kind).toBe('slot');
    expect(waits).toEqual([60_000, null, 60_000, null]);

    // A server asking for an hour is asked again after ten minutes at most.
    const server2 = fakeServer(10);
    // API Gateway's own throttle (for everyone, not this address) is told apart.
    server2.failures.push(new ApiRequestError({ kind: 'http', status: 429, message: 'Too Many Requests', retryAfterMs: 3_600_000 }));
    const why: string[] = [];
    const second = broker(server2.api, fps(2), 50, (until, reason) => void (until !== null && why.push(reason!))).b.take(fps(2)[0]!);
    await jest.advanceTimersByTimeAsync(MAX_TOLD_WAIT_MS);
    expect((await second).kind).toBe('slot');
    expect(why).toEqual(['busy']);
    expect(serverWaitMessage(5, 'busy')).toBe('The upload service is busy and asked to wait. Uploading continues by itself in 5 seconds.');
  });

  it("the firewall's refusal (403) is final and told apart from an unreachable server", async () => {
    const server = fakeServer(10);
    const { status, message } = UPLOADS_EDGE_ANSWERS.refused;
    server.failures.push(new ApiRequestError({ kind: 'http', status, message }));
    expect(await broker(server.api, fps(2)).b.take(fps(2)[0]!)).toEqual({ kind: 'refused' });
    expect(server.calls).toHaveLength(1);
    // Another 403 (the API's own: not this member's ranch) stays "unavailable" with its words.
    const server2 = fakeServer(10);
    server2.failures.push(new ApiRequestError({ kind: 'http', status: 403, message: 'That ranch is not yours' }));
    expect(await broker(server2.api, fps(2)).b.take(fps(2)[0]!)).toEqual({ kind: 'unavailable', reason: 'That ranch is not yours' });
  });

  it('renews a reservation with unused slots when it would lapse within 5 minutes, not before', async () => {
    const server = fakeServer(100);
    const photos = fps(20);
    const { b } = broker(server.api, photos);
    await b.take(photos[0]!);
    await jest.advanceTimersByTimeAsync(9 * 60_000);
    await b.take(photos[1]!);
    expect(server.calls.filter((c) => c.kind === 'renew')).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(60_001);
    await b.take(photos[2]!);
    expect(server.calls.filter((c) => c.kind === 'renew')).toHaveLength(1);
  });

  it('a reservation the server says has lapsed (410) gives its photos back: they are asked for again', async () => {
    const server = fakeServer(100);
    server.api.renew = async () => Promise.reject(new ApiRequestError({ kind: 'http', status: 410, message: 'expired' }));
    const photos = fps(5);
    const { b } = broker(server.api, photos);
    await b.take(photos[0]!);
    await jest.advanceTimersByTimeAsync(11 * 60_000);
    await b.take(photos[1]!);
    await jest.advanceTimersByTimeAsync(0);
    expect((await b.take(photos[2]!)).kind).toBe('slot');
    expect(server.calls.filter((c) => c.kind === 'reserve')).toHaveLength(2);
  });

  it('releases only the reservations with unused slots, once', async () => {
    const server = fakeServer(100);
    const photos = fps(60);
    const { b } = broker(server.api, photos, 50);
    for (const f of photos.slice(0, 50)) await b.take(f);
    await b.take(photos[50]!);
    await b.releaseAll();
    expect(server.calls.filter((c) => c.kind === 'release').map((c) => c.arg)).toEqual(['r-2026_11-reservation00000002']);
    await b.releaseAll();
    expect(server.calls.filter((c) => c.kind === 'release')).toHaveLength(1);
  });
});
