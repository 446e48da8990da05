import { UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import type { UploadsApi } from '../../../services/api/api-client';
import { ApiRequestError } from '../../../services/api/api-client';
import { formsOnServer, type PhotoForm } from '../../../model/photo-forms';
import { nextSlice } from '../../../model/slice-plan';
import { errorText } from '../../uploader-state';

/**
 * What the server said of one photo: a slot to send it with, already had (`known`, in the form
 * the ranch has it: the stages decide whether that is enough, admission.ts), or no slot
 * (`refused`: the uploads API's firewall turned this address away, shared/src/uploads/wire.ts
 * UPLOADS_EDGE_ANSWERS).
 */
export type SlotAnswer =
  | { kind: 'slot'; reservation: string }
  | { kind: 'known'; form: PhotoForm }
  | { kind: 'limit' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'refused' };

/** Why the server asked to wait: this network address sent too many requests, or the service is busy for everyone. */
export type ServerWaitReason = 'address' | 'busy';

/** Where a batch gets its photos' slots. */
export interface Slots {
  take(fingerprint: string): Promise<SlotAnswer>;
  /** Gives every unused slot back. */
  releaseAll(): Promise<void>;
}

/** Every photo under one reservation asked for elsewhere, no calls (ControllerOptions.reservation). */
export function fixedSlots(reservation: string): Slots {
  return { take: () => Promise.resolve({ kind: 'slot', reservation }), releaseAll: () => Promise.resolve() };
}

/** A reservation whose unused slots are renewed when they would lapse within this (ms). */
export const RENEW_MARGIN_MS = 5 * 60_000;
/** Tries of a reservation call that failed for the network or the server, and the waits between. */
const ASK_DELAYS_MS = [1000, 3000];
/**
 * A 429 that says how long to wait (`Retry-After`: the firewall's rate limit) is waited out as
 * told, up to this long at a time, and asked again; after this many such waits in a row (half an
 * hour at the firewall's minute) the photos are left not sent.
 */
export const MAX_TOLD_WAIT_MS = 10 * 60_000;
export const MAX_TOLD_WAITS = 30;

export interface SlotBrokerDeps {
  api: UploadsApi;
  ranchId: string;
  /** The fingerprints of the photos still to send, in list order (the next slice is taken from them). */
  upcoming: () => Iterable<string>;
  /** How many photos to ask for at once (model/slice-plan.ts sliceSize). */
  sliceSize: () => number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /**
   * The server asked to wait until this instant (by `now`) before asking again — its firewall, for
   * this network address (`address`), or the API for everyone (`busy`: its throttle); null: no longer waiting.
   */
  onServerWait?: (until: number | null, why?: ServerWaitReason) => void;
  /** The server's month for the granted photos (it may differ from the one the screen shows). */
  onMonth: (yearmo: string) => void;
  /** The reservations holding unused slots, whenever they change (kept so a batch that never ends can be cleaned up after). */
  remember?: (reservations: string[]) => void;
  logError: (message: string, error: unknown) => void;
}

interface Held {
  unused: number;
  lifetimeMs: number;
  /** When its slots lapse, by this browser's clock (from the server's lifetime, not its clock). */
  expiresAt: number;
}

/**
 * Upload slots for one running batch (docs/uploader.md#server-reservations): before a photo is
 * sent, `take` gives it a slot of a reservation, asking the uploads API for a slice of the
 * batch's photos when it has none for it; the answer also says which photos the ranch already
 * has (from any device). Slots about to lapse are renewed; at the end `releaseAll` gives the
 * unused ones back. Concurrent `take`s share one call at a time.
 */
export class SlotBroker implements Slots {
  private readonly granted = new Map<string, string>();
  /** The photos the ranch has, in the form it has each in. */
  private readonly known = new Map<string, PhotoForm>();
  private readonly refused = new Set<string>();
  /** Photos given a slot: still "waiting" in the list until the engine's next flush, never asked for again. */
  private readonly taken = new Set<string>();
  private readonly held = new Map<string, Held>();
  private asking: Promise<void> | null = null;

  constructor(private readonly deps: SlotBrokerDeps) {}

  private settled = (fingerprint: string) =>
    this.granted.has(fingerprint) || this.taken.has(fingerprint) || this.known.has(fingerprint) || this.refused.has(fingerprint);

  /** The slot (or the server's word) for the photo with this fingerprint. */
  async take(fingerprint: string): Promise<SlotAnswer> {
    // Only this photo's own asks count: waiting behind another photo's ask (whose slice may not
    // hold this one, e.g. before the background checks have its fingerprint) is not a try.
    for (let asked = 0; ;) {
      const form = this.known.get(fingerprint);
      if (form !== undefined) return { kind: 'known', form };
      const reservation = this.granted.get(fingerprint);
      if (reservation !== undefined) {
        this.granted.delete(fingerprint);
        this.taken.add(fingerprint);
        const held = this.held.get(reservation);
        if (held) held.unused--;
        this.renewDue();
        return { kind: 'slot', reservation };
      }
      if (this.refused.has(fingerprint)) return { kind: 'limit' };
      if (this.asking) {
        await this.asking.catch(() => undefined);
        continue;
      }
      // An answer always settles the photo asked for; a second ask is for one whose reservation
      // lapsed meanwhile, a third would be a loop.
      if (asked >= 2) return { kind: 'unavailable', reason: 'no answer for this photo' };
      asked++;
      const asking = this.ask(fingerprint);
      this.asking = asking;
      try {
        await asking;
      } catch (error) {
        if (isFirewallRefusal(error)) return { kind: 'refused' };
        return { kind: 'unavailable', reason: errorText(error) };
      } finally {
        this.asking = null;
      }
    }
  }

  private async ask(fingerprint: string): Promise<void> {
    const slice = nextSlice(fingerprint, this.deps.upcoming(), this.settled, this.deps.sliceSize());
    const asked = this.deps.now();
    const answer = await this.withRetries(() => this.deps.api.reserve(this.deps.ranchId, slice));
    for (const [f, form] of formsOnServer(answer.known, answer.copies)) this.known.set(f, form);
    const granted = new Set(answer.granted);
    if (answer.reservation !== null && answer.granted.length > 0) {
      for (const f of answer.granted) this.granted.set(f, answer.reservation);
      this.held.set(answer.reservation, {
        unused: answer.granted.length,
        lifetimeMs: answer.lifetimeSeconds * 1000,
        expiresAt: asked + answer.lifetimeSeconds * 1000,
      });
    }
    // Neither known nor granted: the ceiling has no room for it this month — unless the member's
    // share held it back (`shareLimited`): it is asked for again when its turn comes.
    if (!answer.shareLimited) for (const f of slice) if (!granted.has(f) && !this.known.has(f)) this.refused.add(f);
    this.deps.remember?.([...this.held.keys()]);
    this.deps.onMonth(answer.yearmo);
  }

  /**
   * Tries a call again after a network failure, a timeout or a 5xx; a 429 with `Retry-After` after
   * the time it names (said on screen meanwhile: `onServerWait`); anything else is final.
   */
  private async withRetries<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0, told = 0; ;) {
      try {
        return await call();
      } catch (error) {
        const e = error instanceof ApiRequestError ? error.error : null;
        if (e?.kind === 'http' && e.status === 429 && e.retryAfterMs !== undefined && told < MAX_TOLD_WAITS) {
          told++;
          const wait = Math.min(e.retryAfterMs, MAX_TOLD_WAIT_MS);
          this.deps.onServerWait?.(this.deps.now() + wait, e.message === UPLOADS_EDGE_ANSWERS.rateLimited.message ? 'address' : 'busy');
          try {
            await this.deps.sleep(wait);
          } finally {
            this.deps.onServerWait?.(null);
          }
          continue;
        }
        const transient = e !== null && (e.kind === 'network' || e.kind === 'timeout' || (e.kind === 'http' && (e.status >= 500 || e.status === 429)));
        const delay = ASK_DELAYS_MS[attempt++];
        if (!transient || delay === undefined) throw error;
        await this.deps.sleep(delay);
      }
    }
  }

  /** Renews reservations with unused slots that would lapse soon; one that has lapsed gives its photos back to be asked again. */
  private renewDue(): void {
    const now = this.deps.now();
    for (const [reservation, held] of this.held) {
      if (held.unused <= 0 || held.expiresAt - now > RENEW_MARGIN_MS) continue;
      // Renewed once per margin: pushed out now, corrected by the answer.
      held.expiresAt = now + RENEW_MARGIN_MS + 60_000;
      this.deps.api.renew(this.deps.ranchId, reservation).then(
        (answer) => {
          // The server's lifetime from when it was asked (its clock may differ from this one).
          if (answer.expiresAt) held.expiresAt = now + held.lifetimeMs;
        },
        (error: unknown) => {
          const e = error instanceof ApiRequestError ? error.error : null;
          if (e?.kind === 'http' && (e.status === 410 || e.status === 404)) {
            this.held.delete(reservation);
            for (const [f, r] of this.granted) if (r === reservation) this.granted.delete(f);
            return;
          }
          this.deps.logError('Could not renew the upload reservation', error);
        },
      );
    }
  }

  /** Gives every unused slot back (the batch ended, stopped or paused for long). */
  async releaseAll(): Promise<void> {
    const open = [...this.held].filter(([, held]) => held.unused > 0).map(([reservation]) => reservation);
    this.held.clear();
    this.deps.remember?.([]);
    this.granted.clear();
    this.refused.clear();
    await Promise.all(
      open.map((reservation) =>
        this.deps.api.release(this.deps.ranchId, reservation).catch((error: unknown) => this.deps.logError('Could not release the upload reservation', error)),
      ),
    );
  }
}

/** The firewall's own refusal (a managed rule matched this address or request): asking again does not help. */
function isFirewallRefusal(error: unknown): boolean {
  const e = error instanceof ApiRequestError ? error.error : null;
  return e?.kind === 'http' && e.status === UPLOADS_EDGE_ANSWERS.refused.status && e.message === UPLOADS_EDGE_ANSWERS.refused.message;
}
