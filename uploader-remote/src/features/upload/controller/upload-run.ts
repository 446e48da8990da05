import { groupCameras } from '../model/camera-match';
import { progressAnnouncement, sessionPauseMessage } from '../model/messages';
import { remainingOf } from '../model/quota';
import { WAKE_GRACE_MS } from '../model/retry';
import { sliceSize } from '../model/slice-plan';
import { capRate, measuresTheLink } from '../model/upload-cap';
import type { ListedFile } from '../model/upload-queue';
import { SessionEndedError } from '../services/upload/session-ended-error';
import { runBatch, type BatchResult, type RunningBatch } from '../services/upload/upload-engine';
import type { UploaderServices } from '../services/uploader-services';
import type { AccountSync } from './account-sync';
import { Admissions } from './admission';
import { CopyAhead } from './copy-ahead';
import { copyBytesOf } from '../model/photo-forms';
import type { BatchJournal } from './batch-journal';
import { BatchOutcomeRecorder } from './batch-outcome-recorder';
import { BatchProgress } from './batch-progress';
import type { Intake } from './intake';
import { recordInJournal, reportToAnalytics, RunEvents, RunTally, shareSuccesses } from './run-events';
import { RunScreen } from './run-screen';
import { fixedSlots, SlotBroker, type Slots } from './slot-broker';
import type { ControllerOptions, PauseReason, UploaderIdentity, UploaderStore } from './uploader-state';

/** The fingerprints of the listed photos still waiting to be sent, in list order (the next slices come from them). */
function* upcomingFingerprints(files: readonly ListedFile[]): Iterable<string> {
  for (const f of files) if (f.status.kind === 'waiting' && f.fingerprint !== undefined) yield f.fingerprint;
}

/** Listed originals of photos the ranch has as copies, still to send: they use no allowance. */
function upgradesWaiting(files: readonly ListedFile[]): number {
  let n = 0;
  for (const f of files) if (f.upgrade && f.status.kind !== 'failed') n++;
  return n;
}

/** What a listed photo is expected to send when copies are sent: a typical copy, or itself when smaller or an original after its copy. */
function expectedBytes(file: ListedFile): number {
  return file.upgrade ? file.size : copyBytesOf([file.size]);
}

/** The listed photos' average size (a slice's photos are like these). */
function averageSize(files: readonly ListedFile[]): number {
  if (files.length === 0) return 0;
  let sum = 0;
  for (const f of files) sum += f.size;
  return sum / files.length;
}

/** One running batch's parts (UploadRun.prepare). */
interface Run {
  batchId: string;
  now: () => number;
  progress: BatchProgress;
  outcome: BatchOutcomeRecorder;
  tally: RunTally;
  screen: RunScreen;
  slots: Slots;
  /** Aborts the slot broker's waits when the batch ends. */
  sliceSleep: AbortController;
  admissions: Admissions;
  /** The batch's copies when it sends smaller copies (copy-ahead.ts), else null. */
  copies: CopyAhead | null;
  events: RunEvents;
  /** When the computer last woke (or the page resumed). */
  wokeAt: number;
  stopWakes: () => void;
  /** The camera chosen when Upload was pressed: one camera's photos sent as it are suggested as it next time. */
  cameraName: string;
}

/**
 * The running batch, in steps: the lock across tabs (`takeLock`), its parts (`prepare`: the
 * measures, the server's slots, admission — admission.ts decides each photo's key, target and
 * EXIF once — and the listeners of its events, run-events.ts and run-screen.ts), the upload engine
 * (`launch`, services/upload/upload-engine.ts), and its end (`finish`); and pause and resume (offline, a
 * lost session). One batch at a time.
 */
export class UploadRun {
  private engine: RunningBatch | null = null;
  /** Files found new between Upload and the engine's start (null: no batch is starting). */
  private starting: ListedFile[] | null = null;
  private releaseLock: (() => void) | null = null;
  private lockWait: AbortController | null = null;
  /** Measures the running batch's speed (reset across pauses). */
  private progress: BatchProgress | null = null;

  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    private readonly identity: UploaderIdentity,
    private readonly options: ControllerOptions,
    private readonly journal: BatchJournal,
    private readonly intake: Intake,
    private readonly account: AccountSync,
  ) {}

  private get lockName(): string {
    return `trailsense-upload/${this.identity.owner}/${this.identity.ranchId}`;
  }

  private get reservationsKey(): string {
    return `${this.identity.owner}/${this.identity.ranchId}`;
  }

  /** Gives back the slots a batch of this browser left (it never ended); how many went back. Call under the lock only. */
  private async releaseAbandoned(): Promise<number> {
    const { prefs, uploads, logError } = this.services;
    const left = prefs.openReservations(this.reservationsKey);
    if (left.length === 0) return 0;
    prefs.setOpenReservations(this.reservationsKey, []);
    const released = await Promise.all(
      left.map((reservation) =>
        uploads.release(this.identity.ranchId, reservation).then(
          (answer) => answer.released,
          (error: unknown) => {
            logError('Could not release the upload reservation', error);
            return 0;
          },
        ),
      ),
    );
    return released.reduce((a, b) => a + b, 0);
  }

  /**
   * When the screen opens: slots a batch of this browser left go back at once, if no batch of
   * this user and ranch runs (in any tab: the lock says) — then the allowance shown counts them.
   */
  async releaseAbandonedIfIdle(): Promise<void> {
    if (this.engine || this.lockWait) return;
    const release = await this.services.locks.tryAcquire(this.lockName);
    if (!release) return;
    let released = 0;
    try {
      released = await this.releaseAbandoned();
    } finally {
      release();
    }
    if (released > 0) void this.account.fetchUsage();
  }

  /** A batch is sending (the list cannot be changed but by adding to it). */
  get running(): boolean {
    return this.engine !== null;
  }

  /** Files found new while a batch runs join it. */
  join(files: readonly ListedFile[]): void {
    if (this.engine) this.engine.add(files.map((f) => ({ id: f.id, key: f.key, file: f.file })));
    // Upload was pressed and the engine is not running yet (the lock, the slots left behind):
    // they join it when it starts.
    else if (this.starting) this.starting.push(...files);
  }

  /** Stop: nothing new starts; uploads in flight are aborted and go back to waiting. */
  stop(): void {
    this.lockWait?.abort();
    if (!this.engine) return;
    this.store.dispatch({ type: 'stop-requested' });
    this.engine.stop();
  }

  /** Sends `files` (and files found new meanwhile), at most `limit` of them. */
  async start(files: readonly ListedFile[], limit: number): Promise<void> {
    if (this.engine || this.lockWait || files.length === 0 || limit <= 0) return;
    const batchId = this.journal.ensureBatch();
    this.starting = [];
    this.store.dispatch({ type: 'batch-started', ids: files.map((f) => f.id) });
    this.store.set({ announcement: progressAnnouncement({ kind: 'started', files: Math.min(limit, files.length) }) });
    void this.journal.saveBatch();
    if (!(await this.takeLock())) return;
    // Under the lock no batch of this user and ranch runs in this browser: slots left by one that
    // never ended (a reload, a crash) go back before this one asks for its own.
    if ((await this.releaseAbandoned()) > 0) void this.account.fetchUsage();
    const run = this.prepare(files, limit, batchId);
    const engine = this.launch(files, limit, run);
    const result = await engine.done;
    await this.finish(run, result);
  }

  /** Waits for the lock of this user and ranch across tabs; false when the wait was stopped or the screen closed. */
  private async takeLock(): Promise<boolean> {
    const { store } = this;
    const wait = new AbortController();
    this.lockWait = wait;
    try {
      this.releaseLock = await this.services.locks.acquire(this.lockName, wait.signal, () => store.set({ waitingForOtherTab: true }));
    } catch {
      this.lockWait = null;
      this.starting = null;
      store.set({ waitingForOtherTab: false });
      store.dispatch({ type: 'batch-ended' });
      store.set({ announcement: progressAnnouncement({ kind: 'ended', uploaded: 0, failed: 0, stopped: true }) });
      return false;
    }
    this.lockWait = null;
    store.set({ waitingForOtherTab: false });
    if (!store.disposed) return true;
    this.starting = null;
    this.releaseLock?.();
    return false;
  }

  /** The parts of a batch about to run: its measures, its slots, its admission, and who hears its events. */
  private prepare(files: readonly ListedFile[], limit: number, batchId: string): Run {
    const { services, store, identity } = this;
    const now = () => services.now().getTime();
    const before = store.getState().queue;
    const sizes = new Map(files.map((f) => [f.id, f.size]));
    const sizeOf = (id: string) => sizes.get(id) ?? store.getState().queue.files.find((f) => f.id === id)?.size ?? 0;
    // What each photo sends: its copy's bytes once admitted as a copy (so the speed measured is the link's).
    let admissions: Admissions | null = null;
    const bytesOf = (id: string) => admissions?.bytesOf(id) ?? sizeOf(id);
    const sendCopies = store.getState().sendCopies;
    const progress = new BatchProgress(bytesOf, now(), before.uploaded, before.total, sendCopies ? expectedBytes : undefined, () => this.capNow());
    this.progress = progress;
    const outcome = new BatchOutcomeRecorder(now, services.wakeLock, bytesOf, sendCopies);
    const tally = new RunTally(before.uploaded, before.failures);
    const screen = new RunScreen(store, services.timers, now, progress, tally, () => limit - (tally.uploaded - before.uploaded));
    const sliceSleep = new AbortController();
    const slots = this.slotsFor(progress, now, sliceSleep.signal);
    const copies = sendCopies ? new CopyAhead({ maker: services.copies, upcoming: () => store.getState().queue.files }) : null;
    admissions = new Admissions({ store, services, identity, journal: this.journal, intake: this.intake, slots, batchId, files, copies });
    const admitted = admissions;
    const events = new RunEvents((id) => admitted.sent(id));
    events.subscribe((event, sent) => {
      progress.track(event);
      outcome.track(event, sent);
    });
    events.subscribe(tally.listener);
    events.subscribe(shareSuccesses(this.account, services.tabs, identity, now));
    events.subscribe(recordInJournal(this.journal, now));
    events.subscribe(reportToAnalytics(services.analytics, identity.ranchId, tally));
    events.subscribe(screen.listener);
    events.subscribe((event) => {
      if (event.type === 'succeeded' || event.type === 'failed') admitted.settled(event.id);
    });
    // After a sleep (or a frozen page resumed), the connections in flight are dead and may hang:
    // they start again at once, and for a while failures burn no attempt (model/retry.ts).
    const cameraName = store.getState().choices.camera;
    const run: Run = {
      batchId,
      now,
      progress,
      outcome,
      tally,
      screen,
      slots,
      sliceSleep,
      admissions: admitted,
      copies,
      events,
      cameraName,
      wokeAt: Number.NEGATIVE_INFINITY,
      stopWakes: () => {},
    };
    run.stopWakes = services.wakes.subscribe(() => {
      run.wokeAt = now();
      this.progress?.reset(run.wokeAt);
      this.engine?.restart();
    });
    return run;
  }

  /**
   * The member's cap now, in bytes/s (model/upload-cap.ts), or null. A share is of the link's speed
   * as last measured; on a browser that never measured it, of the first speed this batch
   * measures (at full speed: no share applies before), which is then remembered as the link's.
   */
  private capNow(): number | null {
    const { cap, recentSpeed } = this.store.getState();
    if (cap.kind !== 'share' || recentSpeed !== null) return capRate(cap, recentSpeed);
    const measured = this.progress?.rate() ?? null;
    if (measured === null) return null;
    this.store.set({ recentSpeed: measured });
    this.services.prefs.setRecentSpeed(measured);
    return capRate(cap, measured);
  }

  /** Upload slots from the server, a slice of the batch at a time (slot-broker.ts), or the fixed reservation of tests. */
  private slotsFor(progress: BatchProgress, now: () => number, sleepSignal: AbortSignal): Slots {
    const { services, store } = this;
    if (this.options.reservation) return fixedSlots(this.options.reservation);
    return new SlotBroker({
      api: services.uploads,
      ranchId: this.identity.ranchId,
      upcoming: () => upcomingFingerprints(store.getState().queue.files),
      sliceSize: () => sliceSize(progress.rate() ?? store.getState().recentSpeed, averageSize(store.getState().queue.files)),
      now,
      sleep: (ms) => services.sleep(ms, sleepSignal),
      onServerWait: (until, why = 'busy') => store.set({ serverWait: until === null ? null : { seconds: (until - now()) / 1000, why } }),
      onMonth: (month) => this.account.monthSaid(month),
      remember: (reservations) => services.prefs.setOpenReservations(this.reservationsKey, reservations),
      logError: services.logError,
    });
  }

  /** Starts the engine on the batch, with files found new meanwhile. */
  private launch(files: readonly ListedFile[], limit: number, run: Run): RunningBatch {
    const { services, store } = this;
    const engine = runBatch(
      files.map((f) => ({ id: f.id, key: f.key, file: f.file })),
      {
        concurrency: this.options.concurrency,
        limit: limit + upgradesWaiting(files),
        retry: services.retry,
        stallMs: this.options.stallMs ?? services.stallMs,
        pace: () => this.capNow(),
        // Originals of photos the ranch has as copies use no allowance.
        allowance: () => (remainingOf(store.getState().allowance) ?? 0) + upgradesWaiting(store.getState().queue.files),
      },
      {
        upload: (job, context) => services.upload(run.admissions.uploadTarget(job.id), run.admissions.bodyOf(job), context),
        refreshCredentials: async (signal) => {
          try {
            await services.refreshCredentials(signal);
          } catch (error) {
            if (error instanceof SessionEndedError) this.pause('session');
            throw error;
          }
        },
        sleep: services.sleep,
        random: services.random,
        timers: services.timers,
        now: run.now,
        admit: run.admissions.admit,
        isOnline: services.network.online,
        networkLost: () => this.pause('offline'),
        wokeRecently: () => run.now() - run.wokeAt < WAKE_GRACE_MS,
      },
      run.events.emit,
    );
    this.engine = engine;
    const joined = this.starting ?? [];
    this.starting = null;
    if (joined.length > 0) engine.add(joined.map((f) => ({ id: f.id, key: f.key, file: f.file })));
    if (!services.network.online()) this.pause('offline');
    else if (store.getState().paused.length > 0) engine.pause();
    return engine;
  }

  /** The batch ended: its outcome reported, slots given back, what it taught remembered, the lock released. */
  private async finish(run: Run, result: BatchResult): Promise<void> {
    const { services, store, identity } = this;
    void services.analytics.track(run.outcome.finish(result.stopped));
    run.stopWakes();
    run.copies?.stop();
    run.screen.flush();
    // Slots not used go back to the ranch at once (else they lapse with their reservation).
    run.sliceSleep.abort();
    await run.slots.releaseAll();
    const groups = groupCameras(run.tally.sentExif);
    if (run.cameraName && groups.length === 1) services.prefs.rememberCamera(identity.ranchId, groups[0]!.key, run.cameraName);
    // What the link gives (for estimates and a share's cap): not a capped batch's own speed.
    const measured = run.progress.rate();
    const linkSpeed = measured !== null && measuresTheLink(measured, this.capNow()) ? measured : null;
    if (linkSpeed) services.prefs.setRecentSpeed(linkSpeed);
    this.progress = null;
    store.set({ speed: null, recentSpeed: linkSpeed ?? store.getState().recentSpeed });
    this.engine = null;
    this.releaseLock?.();
    this.releaseLock = null;
    store.dispatch({ type: 'batch-ended' });
    store.set({
      paused: [],
      announcement: progressAnnouncement({ kind: 'ended', uploaded: result.succeeded, failed: result.failed, stopped: result.stopped }),
    });
    services.tabs.post({ type: 'batch-ended', owner: identity.owner, ranchId: identity.ranchId });
    void this.account.fetchUsage();
    const { queue } = store.getState();
    if (queue.files.length === 0 && queue.checks.kind === 'idle' && this.journal.currentId === run.batchId) {
      // Everything went up: the batch is done (its entries stay as the record of what was sent).
      this.journal.forget();
      await this.journal.end(run.batchId);
    }
  }

  pause(reason: PauseReason): void {
    const { paused } = this.store.getState();
    if (paused.includes(reason)) return;
    this.store.set({ paused: [...paused, reason] });
    if (!this.engine) return;
    this.engine.pause();
    // A pause is not slowness: the speed is measured again from where it resumes.
    this.progress?.reset(this.services.now().getTime());
    if (reason === 'session') {
      const { uploaded, total } = this.store.getState().queue;
      this.store.set({ announcement: sessionPauseMessage(uploaded, total) });
      this.services.setPausedWorkNotice(sessionPauseMessage(uploaded, total));
    }
  }

  unpause(reason: PauseReason, announcement?: string): void {
    if (!this.store.getState().paused.includes(reason)) return;
    const paused = this.store.getState().paused.filter((r) => r !== reason);
    this.store.set({ paused, ...(announcement ? { announcement } : {}) });
    if (reason === 'session') this.services.setPausedWorkNotice(null);
    if (paused.length === 0) {
      this.progress?.reset(this.services.now().getTime());
      this.engine?.resume();
    }
  }
}
