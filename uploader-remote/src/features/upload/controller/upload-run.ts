import type { JournalEntry, JournalTarget } from '../services/journal/upload-journal';
import { groupCameras } from '../model/camera-match';
import { progressAnnouncement, sessionPauseMessage } from '../model/messages';
import type { PhotoExif } from '../model/photo-exif';
import { remainingOf } from '../model/quota';
import { WAKE_GRACE_MS } from '../model/retry';
import { sliceSize } from '../model/slice-plan';
import type { EngineEvent, ListedFile } from '../model/upload-queue';
import type { UploadTarget } from '../services/amplify-storage';
import { SessionEndedError } from '../services/session-ended-error';
import { runBatch, type Admission, type RunningBatch, type UploadJob } from '../services/upload-engine';
import type { UploaderServices } from '../services/uploader-services';
import type { AccountSync } from './account-sync';
import type { BatchJournal } from './batch-journal';
import { BatchOutcomeRecorder } from './batch-outcome-recorder';
import { BatchProgress } from './batch-progress';
import type { Intake } from './intake';
import { fixedSlots, SlotBroker, type Slots } from './slot-broker';
import type { ControllerOptions, PauseReason, UploaderIdentity, UploaderStore } from './uploader-state';

/** The fingerprints of the listed photos still waiting to be sent, in list order (the next slices come from them). */
function* upcomingFingerprints(files: readonly ListedFile[]): Iterable<string> {
  for (const f of files) if (f.status.kind === 'waiting' && f.fingerprint !== undefined) yield f.fingerprint;
}

/** The listed photos' average size (a slice's photos are like these). */
function averageSize(files: readonly ListedFile[]): number {
  if (files.length === 0) return 0;
  let sum = 0;
  for (const f of files) sum += f.size;
  return sum / files.length;
}

/** Engine events are applied at most this often: one render per flush, not per file or byte. */
const FLUSH_MS = 200;

/**
 * The running batch: the lock across tabs, the upload engine (services/upload-engine.ts), its
 * events folded into the list a flush at a time, each file's journal entry before and after it is
 * sent, the successes shared with the allowance and the other tabs, analytics, and pause and
 * resume (offline, a lost session). One batch at a time.
 */
export class UploadRun {
  private engine: RunningBatch | null = null;
  /** Files found new between Upload and the engine's start (null: no batch is starting). */
  private starting: ListedFile[] | null = null;
  private releaseLock: (() => void) | null = null;
  private lockWait: AbortController | null = null;
  /** The key and target each file of the running batch is sent with. */
  /** What its probe's EXIF said (read just before sending, so known even if its check had not ended). */
  private readonly sending = new Map<string, { key: string; target: UploadTarget; entry: JournalEntry; exif: PhotoExif | null }>();
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

  private targetFor(file: ListedFile | undefined): UploadTarget {
    const { choices } = this.store.getState();
    const chosen: JournalTarget = file?.target ?? { level: choices.training ? 'private' : 'public', cameraName: choices.camera };
    return { level: chosen.level, cameraName: chosen.cameraName, ranchId: this.identity.ranchId };
  }

  /** Sends `files` (and files found new meanwhile), at most `limit` of them. */
  async start(files: readonly ListedFile[], limit: number): Promise<void> {
    if (this.engine || this.lockWait || files.length === 0 || limit <= 0) return;
    const batchId = this.journal.ensureBatch();
    const { services, store } = this;
    const now = () => services.now().getTime();
    const ranchId = this.identity.ranchId;
    const start = store.getState().queue;
    let uploadCount = start.uploaded;
    let failureCount = start.failures;
    let pending: EngineEvent[] = [];
    let timer: unknown = null;

    this.starting = [];
    store.dispatch({ type: 'batch-started', ids: files.map((f) => f.id) });
    store.set({ announcement: progressAnnouncement({ kind: 'started', files: Math.min(limit, files.length) }) });
    void this.journal.saveBatch();

    // One batch per user and ranch across this browser's tabs.
    const wait = new AbortController();
    this.lockWait = wait;
    try {
      this.releaseLock = await services.locks.acquire(this.lockName, wait.signal, () => store.set({ waitingForOtherTab: true }));
    } catch {
      this.lockWait = null;
      this.starting = null;
      store.set({ waitingForOtherTab: false });
      store.dispatch({ type: 'batch-ended' });
      store.set({ announcement: progressAnnouncement({ kind: 'ended', uploaded: 0, failed: 0, stopped: true }) });
      return;
    }
    this.lockWait = null;
    store.set({ waitingForOtherTab: false });
    if (store.disposed) {
      this.starting = null;
      return this.releaseLock?.();
    }
    // Under the lock no batch of this user and ranch runs in this browser: slots left by one that
    // never ended (a reload, a crash) go back before this one asks for its own.
    if ((await this.releaseAbandoned()) > 0) void this.account.fetchUsage();

    // The EXIF of what went up: sent as the chosen camera, one camera's photos are suggested as it
    // next time (decided at the end, from the photos' own probes: Upload may be clicked before
    // the background checks have read every file).
    const sentExif: (PhotoExif | null)[] = [];
    const cameraName = store.getState().choices.camera;

    const sizes = new Map(files.map((f) => [f.id, f.size]));
    const sizeOf = (id: string) => sizes.get(id) ?? store.getState().queue.files.find((f) => f.id === id)?.size ?? 0;
    const progress = new BatchProgress(sizeOf, now(), start.uploaded, start.total);
    this.progress = progress;
    const outcome = new BatchOutcomeRecorder(now, services.wakeLock, sizeOf);
    // Left: the listed files still to send (within the batch's limit).
    const measure = () => store.set({ speed: progress.estimate(now(), store.getState().queue.files, Math.max(0, limit - (uploadCount - start.uploaded))) });
    store.set({ speed: { bytesPerSecond: null, secondsLeft: null } });

    const flush = () => {
      timer = null;
      if (pending.length === 0) return;
      const events = pending;
      pending = [];
      store.dispatch({ type: 'engine-events', events });
      measure();
      const milestone = progress.milestone(uploadCount, store.getState().speed?.secondsLeft ?? null);
      if (milestone !== null) store.set({ announcement: milestone });
    };
    const emit = (event: EngineEvent) => {
      const sent = 'id' in event ? this.sending.get(event.id) : undefined;
      progress.track(event);
      outcome.track(event);
      if (event.type === 'succeeded' && sent) {
        uploadCount++;
        sentExif.push(sent.exif);
        const at = now();
        this.account.recordSuccesses(at, 1);
        services.tabs.post({ type: 'uploaded', owner: this.identity.owner, ranchId, at, count: 1 });
        void this.journal.write([{ ...sent.entry, status: 'uploaded', uploadedAt: at, updatedAt: at }]);
        void services.analytics.track({ name: 'imageUpload', ranchid: ranchId, key: sent.key, uploadCount });
      } else if (event.type === 'failed') {
        failureCount++;
        if (sent) void services.journal.putEntries([{ ...sent.entry, status: 'failed', reason: event.reason, updatedAt: now() }]).catch(() => undefined);
        void services.analytics.track({ name: 'uploadFailure', ranchid: ranchId, failureCount });
      }
      pending.push(event);
      timer ??= services.timers.setTimeout(flush, FLUSH_MS);
    };

    // Upload slots from the server, a slice of the batch at a time (slot-broker.ts).
    const sliceSleep = new AbortController();
    const slots: Slots = this.options.reservation
      ? fixedSlots(this.options.reservation)
      : new SlotBroker({
          api: services.uploads,
          ranchId,
          upcoming: () => upcomingFingerprints(store.getState().queue.files),
          sliceSize: () => sliceSize(progress.rate() ?? store.getState().recentSpeed, averageSize(store.getState().queue.files)),
          now,
          sleep: (ms) => services.sleep(ms, sliceSleep.signal),
          onMonth: (month) => this.account.monthSaid(month),
          remember: (reservations) => services.prefs.setOpenReservations(this.reservationsKey, reservations),
          logError: services.logError,
        });

    // After a sleep (or a frozen page resumed), the connections in flight are dead and may hang:
    // they start again at once, and for a while failures burn no attempt (model/retry.ts).
    let wokeAt = Number.NEGATIVE_INFINITY;
    const unsubscribeWakes = services.wakes.subscribe(() => {
      wokeAt = now();
      this.progress?.reset(wokeAt);
      this.engine?.restart();
    });

    const byId = new Map(files.map((f) => [f.id, f]));
    const admit = async (job: UploadJob): Promise<Admission> => {
      const file = byId.get(job.id) ?? store.getState().queue.files.find((f) => f.id === job.id);
      if (!file) return { go: false, reason: 'unreadable' };
      const probe = await this.intake.probe(file.id, file.file);
      if (probe.kind === 'unreadable') return { go: false, reason: 'unreadable' };
      if (!probe.isJpeg) return { go: false, reason: 'not-jpeg' };
      // Asked again just before sending: another tab may have sent it meanwhile. A journal that
      // cannot be read (storage broken or full) must not stop the upload: it is logged, and only
      // the record across reloads is lost.
      const entry = await services.journal.entries(this.journal.scope, [probe.fingerprint]).then(
        (found) => found.get(probe.fingerprint),
        (error: unknown) => void services.logError('Could not read the upload journal', error),
      );
      if (entry?.status === 'uploaded') return { go: false, reason: 'already-uploaded' };
      const key = entry?.key ?? file.key;
      const target = entry?.target ?? file.target ?? this.targetFor(undefined);
      const journaled: JournalEntry = {
        ...this.journal.entryFor({ ...file, key }, probe.fingerprint, batchId),
        target: { level: target.level, cameraName: target.cameraName },
      };
      // The server's word last: a slot to send it with, or the ranch has it already (sent from
      // another device or browser), or no slot is left this month.
      const slot = await slots.take(probe.fingerprint);
      if (slot.kind === 'known') {
        const at = now();
        await this.journal.write([{ ...journaled, status: 'uploaded', uploadedAt: at, updatedAt: at }]);
        return { go: false, reason: 'already-uploaded' };
      }
      if (slot.kind === 'limit') return { go: false, notSent: 'limit' };
      if (slot.kind === 'unavailable') {
        services.logError('Could not reserve upload slots', new Error(slot.reason));
        return { go: false, notSent: 'unavailable' };
      }
      // Recorded with its key and target before a byte is sent: a crash mid-upload resumes it
      // under the same key, so it never becomes two objects.
      this.intake.claim(file.id);
      this.sending.set(file.id, {
        key,
        target: { ...target, ranchId, reservation: slot.reservation, fingerprint: probe.fingerprint },
        entry: journaled,
        exif: probe.exif,
      });
      await this.journal.write([journaled]);
      return { go: true, key };
    };

    const engine = runBatch(
      files.map((f) => ({ id: f.id, key: f.key, file: f.file })),
      {
        concurrency: this.options.concurrency,
        limit,
        retry: services.retry,
        stallMs: this.options.stallMs ?? services.stallMs,
        allowance: () => remainingOf(store.getState().allowance) ?? 0,
      },
      {
        upload: (job, context) => {
          const sent = this.sending.get(job.id);
          const target = sent?.target ?? this.targetFor(byId.get(job.id));
          return services.upload({ ...target, photo: sent?.exif ?? null }, job, context);
        },
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
        admit,
        isOnline: services.network.online,
        networkLost: () => this.pause('offline'),
        wokeRecently: () => now() - wokeAt < WAKE_GRACE_MS,
      },
      emit,
    );
    this.engine = engine;
    const joined = this.starting ?? [];
    this.starting = null;
    if (joined.length > 0) engine.add(joined.map((f) => ({ id: f.id, key: f.key, file: f.file })));
    if (!services.network.online()) this.pause('offline');
    else if (store.getState().paused.length > 0) engine.pause();

    const result = await engine.done;
    void services.analytics.track(outcome.finish(result.stopped));
    unsubscribeWakes();
    if (timer !== null) services.timers.clearTimeout(timer);
    flush();
    // Slots not used go back to the ranch at once (else they lapse with their reservation).
    sliceSleep.abort();
    await slots.releaseAll();
    const groups = groupCameras(sentExif);
    if (cameraName && groups.length === 1) services.prefs.rememberCamera(ranchId, groups[0]!.key, cameraName);
    const measured = progress.rate();
    if (measured) services.prefs.setRecentSpeed(measured);
    this.progress = null;
    store.set({ speed: null, recentSpeed: measured ?? store.getState().recentSpeed });
    this.engine = null;
    this.sending.clear();
    this.releaseLock?.();
    this.releaseLock = null;
    store.dispatch({ type: 'batch-ended' });
    store.set({
      paused: [],
      announcement: progressAnnouncement({ kind: 'ended', uploaded: result.succeeded, failed: result.failed, stopped: result.stopped }),
    });
    services.tabs.post({ type: 'batch-ended', owner: this.identity.owner, ranchId });
    void this.account.fetchUsage();
    const { queue } = store.getState();
    if (queue.files.length === 0 && queue.checks.kind === 'idle' && this.journal.currentId === batchId) {
      // Everything went up: the batch is done (its entries stay as the record of what was sent).
      this.journal.forget();
      await services.journal.endBatch(batchId).catch((error: unknown) => services.logError('Could not write the upload journal', error));
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
