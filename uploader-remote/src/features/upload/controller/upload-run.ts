import { groupCameras } from '../model/camera-match';
import { progressAnnouncement, sessionPauseMessage } from '../model/messages';
import { WAKE_GRACE_MS } from '../model/retry';
import { capRate, measuresTheLink } from '../model/upload-cap';
import type { ListedFile } from '../model/upload-queue';
import type { BatchResult, RunningBatch } from '../services/upload/upload-engine';
import type { UploaderServices } from '../services/uploader-services';
import type { AccountSync } from './account-sync';
import type { BatchJournal } from './batch-journal';
import { openBatch, type BatchParts } from './batch-parts';
import type { BatchProgress } from './batch-progress';
import type { Intake } from './intake';
import type { StagePipeline } from './stages/pipeline';
import { jobOf, send } from './stages/send/send-stage';
import type { ControllerOptions, PauseReason, UploaderIdentity, UploaderStore } from './uploader-state';

/**
 * Where the run is (docs/architecture.md#the-run-pipeline): one batch at a time, each state with
 * what it holds.
 * - idle: no batch.
 * - locking: Upload was pressed; waiting for the lock of this member and ranch across tabs
 *   (`wait` aborts it). Files found new meanwhile wait in `joined`.
 * - starting: under the lock (`release` gives it back); slots a batch of this browser left go back
 *   before the engine starts.
 * - running: the engine sends the batch (`parts`, `engine`), then the batch is settled.
 */
type RunState =
  | { kind: 'idle' }
  | { kind: 'locking'; joined: ListedFile[]; wait: AbortController }
  | { kind: 'starting'; joined: ListedFile[]; release: () => void }
  | { kind: 'running'; parts: BatchParts; engine: RunningBatch; release: () => void; wokeAt: number; stopWakes: () => void };

/**
 * The running batch as a small state machine (RunState): the lock across tabs, the batch's parts
 * (batch-parts.ts: its measures and its stages — admit, the transforms of stages/index.ts,
 * settle), the engine (the send stage, stages/send/), and its end; and pause and resume
 * (offline, a lost session).
 */
export class UploadRun {
  private state: RunState = { kind: 'idle' };

  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    private readonly identity: UploaderIdentity,
    private readonly options: ControllerOptions,
    private readonly journal: BatchJournal,
    private readonly intake: Intake,
    private readonly account: AccountSync,
    /** The transform stages (stages/index.ts), as intake asks them too. */
    private readonly pipeline: StagePipeline,
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
    if (this.state.kind !== 'idle') return;
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
    return this.state.kind === 'running';
  }

  /** Files found new while a batch runs join it. */
  join(files: readonly ListedFile[]): void {
    const { state } = this;
    if (state.kind === 'running') state.engine.add(files.map(jobOf));
    // Upload was pressed and the engine is not running yet (the lock, the slots left behind):
    // they join it when it starts.
    else if (state.kind === 'locking' || state.kind === 'starting') state.joined.push(...files);
  }

  /** Stop: nothing new starts; uploads in flight are aborted and go back to waiting. */
  stop(): void {
    const { state } = this;
    if (state.kind === 'locking') state.wait.abort();
    if (state.kind !== 'running') return;
    this.store.dispatch({ type: 'stop-requested' });
    state.engine.stop();
  }

  /** Sends `files` (and files found new meanwhile), at most `limit` of them. */
  async start(files: readonly ListedFile[], limit: number): Promise<void> {
    if (this.state.kind !== 'idle' || files.length === 0 || limit <= 0) return;
    const batchId = this.journal.ensureBatch();
    const wait = new AbortController();
    this.state = { kind: 'locking', joined: [], wait };
    this.store.dispatch({ type: 'batch-started', ids: files.map((f) => f.id) });
    this.store.set({ announcement: progressAnnouncement({ kind: 'started', files: Math.min(limit, files.length) }) });
    void this.journal.saveBatch();
    const release = await this.takeLock(wait);
    if (!release) return;
    // Under the lock no batch of this user and ranch runs in this browser: slots left by one that
    // never ended (a reload, a crash) go back before this one asks for its own.
    if ((await this.releaseAbandoned()) > 0) void this.account.fetchUsage();
    const parts = openBatch(this.partsInput(), files, limit, batchId);
    const running = this.launch(files, limit, parts, release);
    const result = await running.engine.done;
    await this.finish(running, result);
  }

  private partsInput() {
    const { store, services, identity, options, journal, intake, account, pipeline, reservationsKey } = this;
    return {
      store,
      services,
      identity,
      options,
      journal,
      intake,
      account,
      pipeline,
      reservationsKey,
      capNow: (progress: BatchProgress) => this.capNow(progress),
    };
  }

  /** Waits for the lock of this user and ranch across tabs: locking → starting; null (and idle) when the wait was stopped or the screen closed. */
  private async takeLock(wait: AbortController): Promise<(() => void) | null> {
    const { store } = this;
    let release: () => void;
    try {
      release = await this.services.locks.acquire(this.lockName, wait.signal, () => store.set({ waitingForOtherTab: true }));
    } catch {
      this.state = { kind: 'idle' };
      store.set({ waitingForOtherTab: false });
      store.dispatch({ type: 'batch-ended' });
      store.set({ announcement: progressAnnouncement({ kind: 'ended', uploaded: 0, failed: 0, stopped: true }) });
      return null;
    }
    store.set({ waitingForOtherTab: false });
    const joined = this.state.kind === 'locking' ? this.state.joined : [];
    if (store.disposed) {
      this.state = { kind: 'idle' };
      release();
      return null;
    }
    this.state = { kind: 'starting', joined, release };
    return release;
  }

  /** starting → running: the engine on the batch (the send stage), with files found new meanwhile. */
  private launch(files: readonly ListedFile[], limit: number, parts: BatchParts, release: () => void): Extract<RunState, { kind: 'running' }> {
    const { services, store } = this;
    const joined = this.state.kind === 'starting' ? this.state.joined : [];
    let running: Extract<RunState, { kind: 'running' }> | null = null;
    const engine = send(files, limit, {
      store,
      services,
      options: this.options,
      admissions: parts.admissions,
      emit: parts.events.emit,
      now: parts.now,
      pace: () => this.capNow(parts.progress),
      wokeRecently: () => parts.now() - (running?.wokeAt ?? Number.NEGATIVE_INFINITY) < WAKE_GRACE_MS,
      pause: (reason) => this.pause(reason),
    });
    running = { kind: 'running', parts, engine, release, wokeAt: Number.NEGATIVE_INFINITY, stopWakes: () => undefined };
    const woken = running;
    // After a sleep (or a frozen page resumed), the connections in flight are dead and may hang:
    // they start again at once, and for a while failures burn no attempt (model/retry.ts).
    woken.stopWakes = services.wakes.subscribe(() => {
      woken.wokeAt = parts.now();
      parts.progress.reset(woken.wokeAt);
      engine.restart();
    });
    this.state = running;
    if (joined.length > 0) engine.add(joined.map(jobOf));
    if (!services.network.online()) this.pause('offline');
    else if (store.getState().paused.length > 0) engine.pause();
    return running;
  }

  /**
   * The member's cap now, in bytes/s (model/upload-cap.ts), or null. A share is of the link's speed
   * as last measured; on a browser that never measured it, of the first speed this batch
   * measures (at full speed: no share applies before), which is then remembered as the link's.
   */
  private capNow(progress: BatchProgress): number | null {
    const { cap, recentSpeed } = this.store.getState();
    if (cap.kind !== 'share' || recentSpeed !== null) return capRate(cap, recentSpeed);
    const measured = progress.rate();
    if (measured === null) return null;
    this.store.set({ recentSpeed: measured });
    this.services.prefs.setRecentSpeed(measured);
    return capRate(cap, measured);
  }

  /** running → idle: the batch's outcome reported, slots given back, what it taught remembered, the lock released. */
  private async finish(running: Extract<RunState, { kind: 'running' }>, result: BatchResult): Promise<void> {
    const { services, store, identity } = this;
    const { parts } = running;
    void services.analytics.track(parts.outcome.finish(result.stopped, parts.stages.outcome()));
    running.stopWakes();
    parts.stages.end();
    parts.screen.flush();
    // Slots not used go back to the ranch at once (else they lapse with their reservation).
    parts.sliceSleep.abort();
    await parts.slots.releaseAll();
    this.remember(parts);
    this.state = { kind: 'idle' };
    running.release();
    store.dispatch({ type: 'batch-ended' });
    store.set({
      paused: [],
      announcement: progressAnnouncement({ kind: 'ended', uploaded: result.succeeded, failed: result.failed, stopped: result.stopped }),
    });
    services.tabs.post({ type: 'batch-ended', owner: identity.owner, ranchId: identity.ranchId });
    void this.account.fetchUsage();
    const { queue } = store.getState();
    if (queue.files.length === 0 && queue.checks.kind === 'idle' && this.journal.currentId === parts.batchId) {
      // Everything went up: the batch is done (its entries stay as the record of what was sent).
      this.journal.forget();
      store.set({ stageSettings: {} });
      await this.journal.end(parts.batchId);
    }
  }

  /** What the batch taught: the camera its one camera's photos were sent as, and the link's speed. */
  private remember(parts: BatchParts): void {
    const { services, store, identity } = this;
    const groups = groupCameras(parts.tally.sentExif);
    if (parts.cameraName && groups.length === 1) services.prefs.rememberCamera(identity.ranchId, groups[0]!.key, parts.cameraName);
    // What the link gives (for estimates and a share's cap): not a capped batch's own speed.
    const measured = parts.progress.rate();
    const linkSpeed = measured !== null && measuresTheLink(measured, this.capNow(parts.progress)) ? measured : null;
    if (linkSpeed) services.prefs.setRecentSpeed(linkSpeed);
    store.set({ speed: null, recentSpeed: linkSpeed ?? store.getState().recentSpeed });
  }

  pause(reason: PauseReason): void {
    const { paused } = this.store.getState();
    if (paused.includes(reason)) return;
    this.store.set({ paused: [...paused, reason] });
    const { state } = this;
    if (state.kind !== 'running') return;
    state.engine.pause();
    // A pause is not slowness: the speed is measured again from where it resumes.
    state.parts.progress.reset(this.services.now().getTime());
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
    const { state } = this;
    if (paused.length === 0 && state.kind === 'running') {
      state.parts.progress.reset(this.services.now().getTime());
      state.engine.resume();
    }
  }
}
