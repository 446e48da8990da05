import { subscriptionErrorMessage } from '../model/messages';
import { activeSubscription, allowanceFrom, withSuccesses, countingMonth, type AllowanceInputs } from '../model/quota';
import type { UploaderServices } from '../services/uploader-services';
import { errorText, type UploaderIdentity, type UploaderStore } from './uploader-state';

/**
 * The account as the uploader needs it: the subscription, the ranch's monthly limit, this month's
 * usage and the ranch's cameras, fetched from the product API; and the month's allowance kept from
 * them (model/quota.ts), with the uploads that succeeded since the last count (in this tab or
 * another) taken off at once. Each fetch has a generation: an answer older than the latest request
 * is dropped.
 */
export class AccountSync {
  private accountInputs: AllowanceInputs = { ranchMax: undefined, subscribed: undefined, total: undefined, totalRequestedAt: 0 };
  /** When uploads succeeded (ms), in this tab or another, kept until a later fetch counts them. */
  private successes: number[] = [];
  private readonly generations = { subscription: 0, ranch: 0, total: 0, cameras: 0 };
  /** The month the allowance shows (the server's), once fetched. */
  private shownMonth: string | null = null;

  /** `onCameras`: the ranch's cameras arrived (the photos' camera can be suggested among them). */
  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    private readonly identity: UploaderIdentity,
    private readonly onCameras: () => void,
  ) {}

  /** Fetches everything the screen needs of the account (on open, and when the screen comes back). */
  refreshAccount(): void {
    const { api, logError } = this.services;
    const { email, ranchId } = this.identity;
    const sub = ++this.generations.subscription;
    const { subscription } = this.store.getState();
    this.store.set({ subscription: subscription.kind === 'failed' ? { kind: 'loading' } : subscription });
    api.getSubscription(email).then(
      (res) => {
        if (sub !== this.generations.subscription) return;
        const active = activeSubscription(res.subscriber?.entitlements, this.services.now());
        this.accountInputs = { ...this.accountInputs, subscribed: active !== null };
        this.store.set({ subscription: { kind: 'known', active } });
        this.updateAllowance();
      },
      (error: unknown) => {
        if (sub !== this.generations.subscription) return;
        logError('Could not fetch the subscription', error);
        this.accountInputs = { ...this.accountInputs, subscribed: error instanceof Error ? error : new Error(String(error)) };
        this.store.set({ subscription: { kind: 'failed', message: subscriptionErrorMessage(errorText(error)) } });
        this.updateAllowance();
      },
    );
    const ranch = ++this.generations.ranch;
    api.getRanch(ranchId).then(
      (res) => {
        if (ranch !== this.generations.ranch) return;
        const max = Number(res.max_monthly_uploads);
        this.accountInputs = { ...this.accountInputs, ranchMax: Number.isFinite(max) ? max : new Error('the server reported an unreadable monthly limit') };
        this.updateAllowance();
      },
      (error: unknown) => {
        if (ranch !== this.generations.ranch) return;
        logError('Could not fetch the ranch', error);
        this.accountInputs = { ...this.accountInputs, ranchMax: error instanceof Error ? error : new Error(String(error)) };
        this.updateAllowance();
      },
    );
    const cameras = ++this.generations.cameras;
    api.getCameras(ranchId).then(
      (res) => {
        if (cameras !== this.generations.cameras) return;
        this.store.set({ cameras: Array.isArray(res.Cameras) ? res.Cameras : [] });
        this.onCameras();
      },
      (error: unknown) => logError('Could not fetch the cameras', error),
    );
    void this.fetchUsage();
  }

  /**
   * Fetches this month's usage again (after a batch, Try again, another tab's batch). The month is
   * the server's (infra/docs/server.md#one-month): asked by this browser's UTC month, and asked
   * again for the month the answer says photos count in now when they differ (a clock off near
   * the turn of the month), or for `month` when a reservation named it.
   */
  async fetchUsage(month?: string): Promise<void> {
    const generation = ++this.generations.total;
    const requestedAt = this.services.now().getTime();
    if (this.accountInputs.total instanceof Error) {
      this.accountInputs = { ...this.accountInputs, total: undefined };
      this.updateAllowance();
    }
    const asked = month ?? countingMonth(this.services.now());
    let again: string | null = null;
    await this.services.uploads.getUploadMetrics(this.identity.ranchId, asked).then(
      (metrics) => {
        if (generation !== this.generations.total) return;
        if (month === undefined && typeof metrics.month === 'string' && /^\d{4}_\d{2}$/.test(metrics.month) && metrics.month !== asked) {
          again = metrics.month;
          return;
        }
        this.shownMonth = asked;
        this.accountInputs = {
          ...this.accountInputs,
          total: metrics.total ?? '',
          totalRequestedAt: requestedAt,
          reserved: typeof metrics.reserved === 'number' ? metrics.reserved : 0,
          ...(typeof metrics.ceiling === 'number' ? { ceiling: metrics.ceiling } : {}),
        };
        // Successes before this request are in its count (or will never be missed again).
        this.successes = this.successes.filter((at) => at > requestedAt);
        this.updateAllowance();
      },
      (error: unknown) => {
        if (generation !== this.generations.total) return;
        this.services.logError('Could not fetch the upload metrics', error);
        this.accountInputs = { ...this.accountInputs, total: error instanceof Error ? error : new Error(String(error)) };
        this.updateAllowance();
      },
    );
    if (again !== null) await this.fetchUsage(again);
  }

  /** A reservation said photos count in `month`: the allowance is fetched for it if it shows another. */
  monthSaid(month: string): void {
    if (this.shownMonth !== null && month !== this.shownMonth) void this.fetchUsage(month);
  }

  /** "Try again" while the allowance is unknown: fetches what failed. */
  retryAllowance(): void {
    const failed = (v: unknown) => v instanceof Error;
    if (failed(this.accountInputs.ranchMax) || failed(this.accountInputs.subscribed)) this.refreshAccount();
    else void this.fetchUsage();
  }

  /** Uploads that succeeded at `at` (here or in another tab): off the allowance until a fetch counts them. */
  recordSuccesses(at: number, count: number): void {
    for (let i = 0; i < count; i++) this.successes.push(at);
    this.store.set({ allowance: withSuccesses(this.store.getState().allowance, at, count) });
  }

  private updateAllowance(): void {
    this.store.set({ allowance: allowanceFrom(this.accountInputs, this.successes) });
  }
}
