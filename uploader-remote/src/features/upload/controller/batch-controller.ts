import type { Camera, JournalBatch, JournalEntry, JournalScope, JournalTarget } from '@trailsense/shared/aws';
import { groupCameras, suggestCamera } from '../model/camera-match';
import { extensionOf, precheckSelection, type SkippedFile } from '../model/file-filter';
import {
  ALLOWANCE_USED_UP,
  allowanceUnknownMessage,
  FOLDER_NOT_ALLOWED,
  progressAnnouncement,
  progressQuarter,
  SESSION_RESUMED,
  sessionPauseMessage,
  subscriptionErrorMessage,
} from '../model/messages';
import { activeSubscription, allowanceFrom, remainingOf, withSuccesses, yearMonth, type ActiveSubscription, type Allowance, type AllowanceInputs } from '../model/quota';
import {
  initialQueueState,
  planUpload,
  queueReducer,
  type CheckVerdict,
  type EngineEvent,
  type ListedFile,
  type QueueAction,
  type QueueState,
} from '../model/upload-queue';
import type { PhotoExif } from '../model/photo-exif';
import { milestoneWithTimeLeft, SpeedMeter } from '../model/speed-meter';
import type { UploadTarget } from '../services/amplify-storage';
import type { FileProbe } from '../services/file-probe';
import { walkDirectoryHandle, type DirectoryHandleLike, type FoundFile, type WalkResult } from '../services/folder-walk';
import { runBatch, type Admission, type RunningBatch, type UploadJob } from '../services/upload-engine';
import { SessionEndedError } from '../services/session-ended-error';
import type { UploaderServices } from '../services/uploader-services';

/** The subscription as the screen knows it. */
export type SubscriptionState =
  | { kind: 'loading' }
  | { kind: 'known'; active: ActiveSubscription | null }
  /** docs/product.md#uploader-messages: shown in the error area. */
  | { kind: 'failed'; message: string };

/** An unfinished batch found in the journal when the uploader opens. */
export interface ResumeOffer {
  uploaded: number;
  total: number;
  lastActivity: Date;
  /** The kept folder's name when the browser let the site keep it: Resume reads it again, no new pick. */
  folder: string | null;
}

/** The upload speed and time left of the running batch; null while still measured (the first seconds). */
export interface SpeedEstimate {
  bytesPerSecond: number | null;
  secondsLeft: number | null;
}

/** Why a running batch is paused: it continues by itself when the cause goes away. */
export type PauseReason = 'offline' | 'session';

/** Everything the uploader screen shows: one immutable snapshot per change. */
export interface UploaderState {
  queue: QueueState;
  subscription: SubscriptionState;
  allowance: Allowance;
  cameras: Camera[];
  /** The batch's camera ("" for "Indicate camera") and training choice. */
  choices: { camera: string; training: boolean };
  /** The over-allowance question, while it is asked. */
  confirm: { remaining: number; listed: number } | null;
  offer: ResumeOffer | null;
  /** Causes the running batch is paused for (it goes on when none is left). */
  paused: readonly PauseReason[];
  /** The batch waits for another tab of the same user and ranch. */
  waitingForOtherTab: boolean;
  /** The latest polite announcement for screen readers. */
  announcement: string;
  /** A folder or a drop being read: how many files were found so far. */
  reading: { found: number } | null;
  /** The running batch's speed and time left. */
  speed: SpeedEstimate | null;
  /** The speed of recent batches on this browser (bytes/s), for the summary's estimate. */
  recentSpeed: number | null;
}

/** Who the controller uploads for. */
export interface UploaderIdentity {
  /** The user's `sub`: the journal's owner. */
  owner: string;
  email: string;
  ranchId: string;
}

export interface ControllerOptions {
  concurrency: number;
  /** Overrides the services' stall bound (`?stall=N`). */
  stallMs?: number;
}

/** Engine events are applied at most this often: one render per flush, not per file or byte. */
const FLUSH_MS = 200;
/** Files read per background step: one state update and one journal transaction per chunk. */
const CHECK_CHUNK = 256;
/** Files whose sizes are read per message to the worker: the first ones are listed soon. */
const STAT_CHUNK = 1000;

/** What a selection is made of: files from an input (their own relative path) or found in a folder. */
export type ChosenFile = File | FoundFile;

/** A chosen file with what the list needs of it, read once (never `File.size` on this thread). */
interface PickedFile {
  file: File;
  name: string;
  path: string;
  size: number;
  lastModified: number;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The uploader's batch, outside React (docs/style.md#where-logic-lives: a framework-free core under thin hooks): the list, the journal,
 * the background checks, the upload engine, pause and resume (offline, lost session), the
 * month's allowance, the lock and messages between tabs, analytics and announcements. The screen
 * reads `getState()` through `subscribe` (useSyncExternalStore) and calls its methods; tests
 * drive it without a DOM.
 */
export class BatchController {
  private state: UploaderState;
  private readonly listeners = new Set<() => void>();
  private readonly scope: JournalScope;
  private readonly unsubscribe: (() => void)[] = [];
  private disposed = false;

  /** The unfinished batch of the resume offer. */
  private offered: JournalBatch | null = null;
  /** The batch (the list) in the journal; created with the first listed file. */
  private batchId: string | null = null;
  private batchCreatedAt = 0;
  private readonly probes = new Map<string, Promise<FileProbe>>();
  /** Which listed file is each photo (by fingerprint): a second copy is dropped as a duplicate. */
  private readonly listedFingerprints = new Map<string, string>();
  private engine: RunningBatch | null = null;
  private releaseLock: (() => void) | null = null;
  private lockWait: AbortController | null = null;
  /** Files whose journal entry the upload path writes (admitted): the background check leaves them be. */
  private readonly claimed = new Set<string>();
  /** The key and target each file of the running batch is sent with. */
  /** What its probe's EXIF said (read just before sending, so known even if its check had not ended). */
  private readonly sending = new Map<string, { key: string; target: UploadTarget; entry: JournalEntry; exif: PhotoExif | null }>();

  private accountInputs: AllowanceInputs = { ranchMax: undefined, subscribed: undefined, total: undefined, totalRequestedAt: 0 };
  /** When uploads succeeded (ms), in this tab or another, kept until a later fetch counts them. */
  private successes: number[] = [];
  private readonly generations = { subscription: 0, ranch: 0, total: 0, cameras: 0 };
  private checking: Promise<void> = Promise.resolve();
  /** The user picked the camera: the photos' suggestion no longer overrides it. */
  private cameraChosen = false;
  /**
   * Where the batch's selections came from: a folder handle (FileSystemDirectoryHandle) or null
   * for files picked or dropped. When all came from one folder, its handle is kept in the journal
   * so Resume can read it again.
   */
  private sources: (DirectoryHandleLike | null)[] = [];
  /** Measures the running batch's speed (reset across pauses). */
  private meter: SpeedMeter | null = null;

  constructor(
    private readonly services: UploaderServices,
    readonly identity: UploaderIdentity,
    private readonly options: ControllerOptions,
  ) {
    this.scope = { owner: identity.owner, ranchId: identity.ranchId };
    this.state = {
      queue: initialQueueState,
      subscription: { kind: 'loading' },
      allowance: { kind: 'loading' },
      cameras: [],
      choices: { camera: '', training: false },
      confirm: null,
      offer: null,
      paused: [],
      waitingForOtherTab: false,
      announcement: '',
      reading: null,
      speed: null,
      recentSpeed: services.prefs.recentSpeed(),
    };
    this.unsubscribe.push(
      services.network.subscribe((online) => (online ? this.unpause('offline') : this.pause('offline'))),
      services.session.subscribe(() => this.pause('session')),
      services.tabs.subscribe((message) => {
        if (message.owner !== identity.owner || message.ranchId !== identity.ranchId) return;
        if (message.type === 'uploaded') this.recordSuccesses(message.at, message.count);
        else void this.fetchUsage();
      }),
    );
    void this.loadOffer();
  }

  // --- the external store -------------------------------------------------------------------

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): UploaderState => this.state;

  private set(patch: Partial<UploaderState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private dispatch(action: QueueAction): void {
    const queue = queueReducer(this.state.queue, action);
    if (queue !== this.state.queue) this.set({ queue });
  }

  private now(): number {
    return this.services.now().getTime();
  }

  // --- the account: subscription, limit, usage, cameras ---------------------------------------

  /** Fetches everything the screen needs of the account (on open, and when the screen comes back). */
  refreshAccount(): void {
    const { api, logError } = this.services;
    const { email, ranchId } = this.identity;
    const sub = ++this.generations.subscription;
    this.set({ subscription: this.state.subscription.kind === 'failed' ? { kind: 'loading' } : this.state.subscription });
    api.getSubscription(email).then(
      (res) => {
        if (sub !== this.generations.subscription) return;
        const active = activeSubscription(res.subscriber?.entitlements, this.services.now());
        this.accountInputs = { ...this.accountInputs, subscribed: active !== null };
        this.set({ subscription: { kind: 'known', active } });
        this.updateAllowance();
      },
      (error: unknown) => {
        if (sub !== this.generations.subscription) return;
        logError('Could not fetch the subscription', error);
        this.accountInputs = { ...this.accountInputs, subscribed: error instanceof Error ? error : new Error(String(error)) };
        this.set({ subscription: { kind: 'failed', message: subscriptionErrorMessage(errorText(error)) } });
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
        this.set({ cameras: Array.isArray(res.Cameras) ? res.Cameras : [] });
        this.suggestCamera();
      },
      (error: unknown) => logError('Could not fetch the cameras', error),
    );
    void this.fetchUsage();
  }

  /** Fetches this month's usage again (after a batch, Try again, another tab's batch). */
  fetchUsage(): Promise<void> {
    const generation = ++this.generations.total;
    const requestedAt = this.now();
    if (this.accountInputs.total instanceof Error) {
      this.accountInputs = { ...this.accountInputs, total: undefined };
      this.updateAllowance();
    }
    return this.services.api.getUploadMetrics(this.identity.ranchId, yearMonth(this.services.now())).then(
      (metrics) => {
        if (generation !== this.generations.total) return;
        this.accountInputs = { ...this.accountInputs, total: metrics.total ?? '', totalRequestedAt: requestedAt };
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
  }

  /** "Try again" while the allowance is unknown: fetches what failed. */
  retryAllowance(): void {
    const failed = (v: unknown) => v instanceof Error;
    if (failed(this.accountInputs.ranchMax) || failed(this.accountInputs.subscribed)) this.refreshAccount();
    else void this.fetchUsage();
  }

  private updateAllowance(): void {
    this.set({ allowance: allowanceFrom(this.accountInputs, this.successes) });
  }

  private recordSuccesses(at: number, count: number): void {
    for (let i = 0; i < count; i++) this.successes.push(at);
    this.set({ allowance: withSuccesses(this.state.allowance, at, count) });
  }

  // --- choices and the resume offer ----------------------------------------------------------

  setCamera(camera: string): void {
    this.cameraChosen = true;
    this.set({ choices: { ...this.state.choices, camera } });
    void this.saveBatch();
  }

  setTraining(training: boolean): void {
    this.set({ choices: { ...this.state.choices, training } });
    void this.saveBatch();
  }

  private async loadOffer(): Promise<void> {
    try {
      await this.services.journal.prune(this.now());
      const [newest] = await this.services.journal.openBatches(this.scope);
      if (!newest || this.batchId || this.state.queue.files.length > 0) return;
      const folder = folderHandle(newest.batch.folder);
      this.set({ offer: { uploaded: newest.uploaded, total: newest.total, lastActivity: new Date(newest.batch.updatedAt), folder: folder?.name ?? null } });
      this.offered = newest.batch;
    } catch (error) {
      this.services.logError('Could not read the upload journal', error);
    }
  }

  /**
   * Resume: the unfinished batch becomes the list's batch again, with its camera and training
   * choice. The files themselves must be picked again (the view opens the picker): those already
   * uploaded are skipped, the rest go with the keys they had.
   */
  resumeOffer(): void {
    const batch = this.offered;
    if (!batch) return;
    this.adoptOffer();
    // The batch's camera was chosen (or suggested) when it began: it stays.
    this.cameraChosen = true;
    this.set({ choices: { camera: batch.camera, training: batch.training } });
  }

  /**
   * Resume from the kept folder: asks the browser to read it again (a prompt, or silently if
   * allowed) and lists it as if it was picked; what went up is skipped by the journal. Called from
   * the Resume click, whose user activation the permission prompt needs. False when there is no
   * folder or reading it was refused: the view then asks for a pick.
   */
  async resumeFromFolder(): Promise<boolean> {
    const handle = folderHandle(this.offered?.folder);
    if (!handle) return false;
    this.resumeOffer();
    let permission: string = 'granted';
    try {
      if (handle.queryPermission && (await handle.queryPermission({ mode: 'read' })) !== 'granted') {
        permission = handle.requestPermission ? await handle.requestPermission({ mode: 'read' }) : 'denied';
      }
    } catch (error) {
      this.services.logError('Could not ask to read the folder again', error);
      permission = 'denied';
    }
    if (permission !== 'granted') {
      this.dispatch({ type: 'notice', text: FOLDER_NOT_ALLOWED });
      return false;
    }
    this.addFolder(handle);
    return true;
  }

  private adoptOffer(): void {
    const batch = this.offered;
    if (!batch || this.batchId) return;
    this.batchId = batch.id;
    this.batchCreatedAt = batch.createdAt;
    this.offered = null;
    this.set({ offer: null });
  }

  /** Discard: forgets the unfinished batch (what went up stays recorded) and offers the next, if any. */
  async discardOffer(): Promise<void> {
    const batch = this.offered;
    if (!batch) return;
    this.offered = null;
    this.set({ offer: null });
    try {
      await this.services.journal.endBatch(batch.id);
    } catch (error) {
      this.services.logError('Could not discard the batch', error);
    }
    await this.loadOffer();
  }

  private async saveBatch(): Promise<void> {
    if (!this.batchId) return;
    const now = this.now();
    const batch: JournalBatch = {
      id: this.batchId,
      ...this.scope,
      createdAt: this.batchCreatedAt || now,
      updatedAt: now,
      camera: this.state.choices.camera,
      training: this.state.choices.training,
      ...(this.keptFolder() ? { folder: this.keptFolder() } : {}),
    };
    try {
      await this.services.journal.putBatch(batch);
    } catch (error) {
      this.services.logError('Could not write the upload journal', error);
    }
  }

  private keptFolder(): DirectoryHandleLike | null {
    const [first] = this.sources;
    return first && this.sources.every((s) => s === first) ? first : null;
  }

  private ensureBatch(): string {
    if (!this.batchId) {
      this.adoptOffer();
      if (!this.batchId) {
        this.batchId = this.services.newId();
        this.batchCreatedAt = this.now();
      }
      void this.saveBatch();
    }
    return this.batchId;
  }

  // --- choosing files ------------------------------------------------------------------------

  /**
   * Lists a selection. The instant checks (empty, not named as a JPEG, too large) skip at once.
   * A file whose size matches nothing in the journal cannot be a photo already uploaded: it is
   * listed at once and read in the background (a second copy of a listed photo is dropped then).
   * The others are held until their fingerprints tell: already uploaded (skipped, counted in the
   * notice), the same photo twice (skipped), interrupted earlier (listed with its old key), or new.
   */
  addFiles(files: readonly ChosenFile[]): void {
    if (files.length === 0 || this.disposed) return;
    this.sources.push(null);
    this.addSelection(files);
  }

  /**
   * Lists a folder the browser gave a handle for (Add Folder with the File System Access API):
   * walked, subfolders included; the handle is kept with the batch so Resume can read it again.
   */
  addFolder(handle: DirectoryHandleLike): void {
    this.sources.push(handle);
    this.addWalk((onProgress) => walkDirectoryHandle(handle, { onProgress }));
  }

  /**
   * Lists what a walk finds (a dropped folder, a picked folder): "Reading… N files" while it
   * runs; entries that could not be read join the skipped files' notice.
   */
  addWalk(walk: (onProgress: (found: number) => void) => Promise<WalkResult>): void {
    if (this.disposed) return;
    this.set({ reading: { found: 0 } });
    const walking = walk((found) => this.set({ reading: { found } })).catch((error: unknown): WalkResult => {
      this.services.logError('Could not read the folder', error);
      return { files: [], unreadable: [{ path: '', reason: errorText(error) }] };
    });
    this.checking = this.checking
      .then(() => walking)
      .then((result) => {
        this.set({ reading: null });
        const unreadable = result.unreadable.map((u): SkippedFile => ({ name: u.path ? u.path.split('/').pop() || u.path : 'The folder', reason: 'unreadable' }));
        if (result.files.length > 0) this.addSelection(result.files, unreadable);
        else if (unreadable.length > 0) this.dispatch({ type: 'files-added', files: [], skipped: unreadable });
      });
  }

  /** `skipped`: what the walk that found `chosen` could not read, for the selection's one notice. */
  private addSelection(chosen: readonly ChosenFile[], skipped: readonly SkippedFile[] = []): void {
    const batchId = this.ensureBatch();
    const files = chosen.map((c): FoundFile => (c instanceof Blob ? { file: c, path: c.webkitRelativePath ?? '' } : c));
    // At once, before any file is touched: every chosen file counts as being checked.
    this.dispatch({ type: 'files-added', files: [], skipped: [...skipped], held: files.length });
    this.checking = this.checking.then(() => this.listSelection(files, batchId)).catch((error: unknown) => {
      this.services.logError('Could not check the chosen files', error);
    });
  }

  private async listSelection(files: readonly FoundFile[], batchId: string): Promise<void> {
    // First the whole selection is listed or held, a thousand at a time: on a card picked again
    // the new photos are the last ones, and the user is waiting to see them. Reading fingerprints
    // starts after, so it does not compete with the listing for the main thread.
    const listedNow: ListedFile[] = [];
    const heldBack: PickedFile[] = [];
    for (let start = 0; start < files.length && !this.disposed; start += STAT_CHUNK) {
      const chunk = files.slice(start, start + STAT_CHUNK);
      // Sizes a slice per task (file-prober.ts says why).
      const stats = await this.services.prober.stat(chunk.map((c) => c.file)).catch((error: unknown) => {
        this.services.logError('Could not read the chosen files', error);
        return null;
      });
      if (!stats) {
        const skipped = chunk.map((f): SkippedFile => ({ name: f.file.name, reason: 'unreadable' }));
        this.dispatch({ type: 'held-resolved', files: [], skipped, resolved: chunk.length });
        continue;
      }
      const picked = chunk.map(({ file, path }, i): PickedFile => ({ file, name: file.name, path, ...stats[i]! }));
      const { accepted, skipped } = precheckSelection(picked);
      let known: Set<number>;
      try {
        known = await this.services.journal.sizesKnown(this.scope, accepted.map((f) => f.size));
      } catch (error) {
        // Without the journal every file is held and fingerprinted, and nothing is sent twice
        // within this page; across reloads the journal is what remembers.
        this.services.logError('Could not read the upload journal', error);
        known = new Set(accepted.map((f) => f.size));
      }
      const now: ListedFile[] = [];
      for (const file of accepted) {
        if (known.has(file.size)) heldBack.push(file);
        else now.push(this.listed(file, { kind: 'checking' }));
      }
      listedNow.push(...now);
      // The files that cannot be known already are listed now; the held wait for their fingerprints.
      this.dispatch({ type: 'held-resolved', files: now, skipped, resolved: now.length + skipped.length });
    }
    await Promise.all([this.checkListed(listedNow, batchId), this.resolveHeld(heldBack, batchId)]);
    this.suggestCamera();
  }

  /**
   * Preselects the camera the photos say they come from (model/camera-match.ts), unless the user
   * chose one: once the selection's EXIF is read, and again when the ranch's cameras arrive.
   */
  private suggestCamera(): void {
    if (this.cameraChosen || this.state.choices.camera !== '' || this.state.queue.checks.kind !== 'idle') return;
    const groups = groupCameras(this.state.queue.files.map((f) => f.exif ?? null));
    const suggested = suggestCamera({ groups, cameras: this.state.cameras, remembered: this.services.prefs.cameraNames(this.identity.ranchId) });
    if (suggested) {
      this.set({ choices: { ...this.state.choices, camera: suggested } });
      void this.saveBatch();
    }
  }

  private listed(file: PickedFile, status: ListedFile['status'], from?: { fingerprint: string; entry?: JournalEntry }): ListedFile {
    const id = this.services.newId();
    return {
      id,
      key: from?.entry?.key ?? `${this.services.newId()}${extensionOf(file.name)}`,
      name: file.name,
      path: file.path,
      size: file.size,
      lastModified: file.lastModified,
      file: file.file,
      status,
      ...(from ? { fingerprint: from.fingerprint } : {}),
      ...(from?.entry?.target ? { target: from.entry.target } : {}),
    };
  }

  private probe(id: string, file: Blob): Promise<FileProbe> {
    let probe = this.probes.get(id);
    if (!probe) {
      probe = this.services.prober.probe(file).catch((error: unknown): FileProbe => ({ kind: 'unreadable', reason: errorText(error) }));
      this.probes.set(id, probe);
    }
    return probe;
  }

  private entryFor(file: ListedFile, fingerprint: string, batchId: string): JournalEntry {
    return {
      ...this.scope,
      fingerprint,
      batchId,
      name: file.name,
      path: file.path,
      size: file.size,
      lastModified: file.lastModified,
      key: file.key,
      status: 'waiting',
      ...(file.target ? { target: file.target } : {}),
      updatedAt: this.now(),
    };
  }

  /** Reads listed files' first bytes and fingerprints in the background, a chunk at a time. */
  private async checkListed(files: readonly ListedFile[], batchId: string): Promise<void> {
    for (let start = 0; start < files.length && !this.disposed; start += CHECK_CHUNK) {
      const chunk = files.slice(start, start + CHECK_CHUNK);
      const probes = await Promise.all(chunk.map((f) => this.probe(f.id, f.file)));
      const verdicts: CheckVerdict[] = [];
      const entries: JournalEntry[] = [];
      const stillListed = new Set(this.state.queue.files.map((f) => f.id));
      chunk.forEach((file, i) => {
        const probe = probes[i]!;
        if (probe.kind === 'unreadable') verdicts.push({ id: file.id, ok: false, reason: 'unreadable' });
        else if (!probe.isJpeg) verdicts.push({ id: file.id, ok: false, reason: 'not-jpeg' });
        else if (this.isListedAlready(probe.fingerprint, file.id, stillListed)) verdicts.push({ id: file.id, ok: false, reason: 'duplicate' });
        else {
          verdicts.push({ id: file.id, ok: true, fingerprint: probe.fingerprint, exif: probe.exif });
          this.listedFingerprints.set(probe.fingerprint, file.id);
          // Still listed (not removed or cleared meanwhile) and not already taken by an upload,
          // whose own record (with its target) must not be replaced: recorded as waiting.
          if (stillListed.has(file.id) && !this.claimed.has(file.id)) entries.push(this.entryFor(file, probe.fingerprint, batchId));
        }
      });
      this.dispatch({ type: 'files-checked', verdicts });
      await this.services.journal.putEntries(entries).catch((error: unknown) => this.services.logError('Could not write the upload journal', error));
    }
  }

  /** Whether another file still listed is this photo (the first one read keeps its place). */
  private isListedAlready(fingerprint: string, id: string, listed: ReadonlySet<string>): boolean {
    const other = this.listedFingerprints.get(fingerprint);
    return other !== undefined && other !== id && listed.has(other);
  }

  /** Decides the held files by their fingerprints, a chunk at a time. */
  private async resolveHeld(files: readonly PickedFile[], batchId: string): Promise<void> {
    const seen = new Set<string>();
    for (let start = 0; start < files.length && !this.disposed; start += CHECK_CHUNK) {
      const chunk = files.slice(start, start + CHECK_CHUNK);
      const ids = chunk.map(() => this.services.newId());
      const probes = await Promise.all(chunk.map((file, i) => this.probe(ids[i]!, file.file)));
      const fingerprints = probes.flatMap((p) => (p.kind === 'ok' ? [p.fingerprint] : []));
      const journaled = await this.services.journal.entries(this.scope, fingerprints).catch((error: unknown) => {
        this.services.logError('Could not read the upload journal', error);
        return new Map<string, JournalEntry>();
      });
      // Fingerprints of listed files of the same sizes (read first, if not read yet).
      const chunkSizes = new Set(chunk.map((f) => f.size));
      const sameSize = this.state.queue.files.filter((f) => chunkSizes.has(f.size));
      const listedProbes = await Promise.all(sameSize.map((f) => this.probe(f.id, f.file)));
      for (const p of listedProbes) if (p.kind === 'ok') seen.add(p.fingerprint);
      const stillListed = new Set(this.state.queue.files.map((f) => f.id));

      const add: ListedFile[] = [];
      const skipped: SkippedFile[] = [];
      const entries: JournalEntry[] = [];
      chunk.forEach((file, i) => {
        const probe = probes[i]!;
        if (probe.kind === 'unreadable') return void skipped.push({ name: file.name, reason: 'unreadable' });
        if (!probe.isJpeg) return void skipped.push({ name: file.name, reason: 'not-jpeg' });
        const entry = journaled.get(probe.fingerprint);
        if (entry?.status === 'uploaded') return void skipped.push({ name: file.name, reason: 'already-uploaded' });
        if (seen.has(probe.fingerprint) || this.isListedAlready(probe.fingerprint, ids[i]!, stillListed)) {
          return void skipped.push({ name: file.name, reason: 'duplicate' });
        }
        seen.add(probe.fingerprint);
        this.listedFingerprints.set(probe.fingerprint, ids[i]!);
        const listed = { ...this.listed(file, { kind: 'waiting' }, { fingerprint: probe.fingerprint, ...(entry ? { entry } : {}) }), id: ids[i]!, exif: probe.exif };
        add.push(listed);
        entries.push(this.entryFor(listed, probe.fingerprint, batchId));
      });
      await this.services.journal.putEntries(entries).catch((error: unknown) => this.services.logError('Could not write the upload journal', error));
      // Skipped files are gone from this page: so are their probes (9,000 of a card picked again).
      const kept = new Set(add.map((f) => f.id));
      for (const id of ids) if (!kept.has(id)) this.probes.delete(id);
      this.dispatch({ type: 'held-resolved', files: add, skipped, resolved: chunk.length });
      // Files found while a batch runs join it.
      if (this.engine && add.length > 0) this.engine.add(add.map((f) => ({ id: f.id, key: f.key, file: f.file })));
    }
  }

  // --- the list ------------------------------------------------------------------------------

  remove(id: string): void {
    const file = this.state.queue.files.find((f) => f.id === id);
    if (!file || this.engine) return;
    this.dispatch({ type: 'file-removed', id });
    if (file.fingerprint && this.batchId) void this.releaseEntries([file]);
  }

  /** Clear List: empties the list and ends its batch in the journal (what went up stays recorded). */
  clear(): void {
    if (this.engine) return;
    const batchId = this.batchId;
    this.batchId = null;
    this.probes.clear();
    this.listedFingerprints.clear();
    this.claimed.clear();
    this.sources = [];
    this.cameraChosen = false;
    this.dispatch({ type: 'list-cleared' });
    if (batchId) {
      void this.checking.then(() => this.services.journal.endBatch(batchId)).catch((error: unknown) => this.services.logError('Could not clear the upload journal', error));
    }
  }

  /** Takes removed files out of the batch: the never-sent are forgotten, the sent keep their keys. */
  private async releaseEntries(files: readonly ListedFile[]): Promise<void> {
    const fingerprints = files.flatMap((f) => (f.fingerprint ? [f.fingerprint] : []));
    try {
      const entries = await this.services.journal.entries(this.scope, fingerprints);
      await this.services.journal.putEntries([...entries.values()].filter((e) => e.status !== 'uploaded').map((e) => ({ ...e, batchId: null, updatedAt: this.now() })));
    } catch (error) {
      this.services.logError('Could not write the upload journal', error);
    }
  }

  // --- uploading -----------------------------------------------------------------------------

  /** Upload clicked: uploads, or asks the over-allowance question. */
  requestUpload(): void {
    const plan = planUpload(this.state.queue, remainingOf(this.state.allowance));
    if (plan.kind === 'confirm') this.set({ confirm: { remaining: plan.remaining, listed: plan.listed } });
    // No count of its own: files still being checked join the batch when they are found to be
    // new, and the allowance (read before every start) bounds it all.
    else if (plan.kind === 'upload') void this.startBatch(this.state.queue.files, Number.POSITIVE_INFINITY);
  }

  answerConfirm(uploadRemaining: boolean): void {
    const asked = this.state.confirm;
    this.set({ confirm: null });
    if (!asked) return;
    if (uploadRemaining) void this.startBatch(this.state.queue.files, asked.remaining);
    else this.dispatch({ type: 'upload-declined' });
  }

  /** Retry on a failed file; says why when nothing can be sent. */
  retryFile(id: string): void {
    const file = this.state.queue.files.find((f) => f.id === id);
    if (!file || this.engine) return;
    const remaining = remainingOf(this.state.allowance);
    if (remaining === null) {
      const reason = this.state.allowance.kind === 'unknown' ? this.state.allowance.reason : 'it is still being checked';
      return this.dispatch({ type: 'notice', text: allowanceUnknownMessage(reason) });
    }
    if (remaining <= 0) return this.dispatch({ type: 'notice', text: ALLOWANCE_USED_UP });
    void this.startBatch([file], 1);
  }

  /** Stop: nothing new starts; uploads in flight are aborted and go back to waiting. */
  stop(): void {
    this.lockWait?.abort();
    if (!this.engine) return;
    this.dispatch({ type: 'stop-requested' });
    this.engine.stop();
  }

  private targetFor(file: ListedFile | undefined): UploadTarget {
    const chosen: JournalTarget = file?.target ?? { level: this.state.choices.training ? 'private' : 'public', cameraName: this.state.choices.camera };
    return { level: chosen.level, cameraName: chosen.cameraName, ranchId: this.identity.ranchId };
  }

  private async startBatch(files: readonly ListedFile[], limit: number): Promise<void> {
    if (this.engine || this.lockWait || files.length === 0 || limit <= 0) return;
    const batchId = this.ensureBatch();
    const { services } = this;
    const ranchId = this.identity.ranchId;
    const start = this.state.queue;
    let uploadCount = start.uploaded;
    let failureCount = start.failures;
    let quarter = progressQuarter(start.uploaded, start.total);
    let pending: EngineEvent[] = [];
    let timer: unknown = null;

    this.dispatch({ type: 'batch-started', ids: files.map((f) => f.id) });
    this.set({ announcement: progressAnnouncement({ kind: 'started', files: Math.min(limit, files.length) }) });
    void this.saveBatch();

    // One batch per user and ranch across this browser's tabs.
    const wait = new AbortController();
    this.lockWait = wait;
    try {
      this.releaseLock = await services.locks.acquire(`trailsense-upload/${this.identity.owner}/${ranchId}`, wait.signal, () => this.set({ waitingForOtherTab: true }));
    } catch {
      this.lockWait = null;
      this.set({ waitingForOtherTab: false });
      this.dispatch({ type: 'batch-ended' });
      this.set({ announcement: progressAnnouncement({ kind: 'ended', uploaded: 0, failed: 0, stopped: true }) });
      return;
    }
    this.lockWait = null;
    this.set({ waitingForOtherTab: false });
    if (this.disposed) return this.releaseLock?.();

    // The EXIF of what went up: sent as the chosen camera, one camera's photos are suggested as it
    // next time (decided at the end, from the photos' own probes: Upload may be clicked before
    // the background checks have read every file).
    const sentExif: (PhotoExif | null)[] = [];
    const cameraName = this.state.choices.camera;

    // Speed and time left: bytes confirmed plus the bytes of uploads in flight, sampled per flush.
    const meter = new SpeedMeter();
    meter.reset(this.now());
    this.meter = meter;
    const sizes = new Map(files.map((f) => [f.id, f.size]));
    const sizeOf = (id: string) => sizes.get(id) ?? this.state.queue.files.find((f) => f.id === id)?.size ?? 0;
    const inFlight = new Map<string, number>();
    let sentBytes = 0;
    const inFlightBytes = () => {
      let sum = 0;
      for (const bytes of inFlight.values()) sum += bytes;
      return sum;
    };
    const measure = () => {
      const now = this.now();
      const moving = inFlightBytes();
      meter.sample(now, sentBytes + moving);
      // Left: the listed files still to send (within the batch's limit), less what is in flight.
      const left = Math.max(0, limit - (uploadCount - start.uploaded));
      let bytesLeft = 0;
      let counted = 0;
      for (const f of this.state.queue.files) {
        if (counted >= left) break;
        if (f.status.kind === 'failed') continue;
        bytesLeft += f.size;
        counted++;
      }
      const bytesPerSecond = meter.rate();
      this.set({ speed: { bytesPerSecond, secondsLeft: bytesPerSecond ? meter.timeLeft(Math.max(0, bytesLeft - moving)) : null } });
    };
    this.set({ speed: { bytesPerSecond: null, secondsLeft: null } });

    const flush = () => {
      timer = null;
      if (pending.length === 0) return;
      const events = pending;
      pending = [];
      this.dispatch({ type: 'engine-events', events });
      measure();
      const q = progressQuarter(uploadCount, start.total);
      if (q !== quarter && uploadCount < start.total) {
        quarter = q;
        // Time left is said here only, a few times a batch: polite and rare.
        this.set({ announcement: milestoneWithTimeLeft(uploadCount, start.total, this.state.speed?.secondsLeft ?? null) });
      }
    };
    const emit = (event: EngineEvent) => {
      const sent = 'id' in event ? this.sending.get(event.id) : undefined;
      if (event.type === 'progress') inFlight.set(event.id, (sizeOf(event.id) * event.percent) / 100);
      else if (event.type === 'succeeded') {
        sentBytes += sizeOf(event.id);
        inFlight.delete(event.id);
      } else if (event.type !== 'started') inFlight.delete(event.id);
      if (event.type === 'succeeded' && sent) {
        uploadCount++;
        sentExif.push(sent.exif);
        const at = this.now();
        this.recordSuccesses(at, 1);
        services.tabs.post({ type: 'uploaded', owner: this.identity.owner, ranchId, at, count: 1 });
        void services.journal.putEntries([{ ...sent.entry, status: 'uploaded', uploadedAt: at, updatedAt: at }]).catch((error: unknown) => services.logError('Could not write the upload journal', error));
        void services.analytics.track({ name: 'imageUpload', ranchid: ranchId, key: sent.key, uploadCount });
      } else if (event.type === 'failed') {
        failureCount++;
        if (sent) void services.journal.putEntries([{ ...sent.entry, status: 'failed', reason: event.reason, updatedAt: this.now() }]).catch(() => undefined);
        void services.analytics.track({ name: 'uploadFailure', ranchid: ranchId, failureCount });
      }
      pending.push(event);
      timer ??= services.timers.setTimeout(flush, FLUSH_MS);
    };

    const byId = new Map(files.map((f) => [f.id, f]));
    const admit = async (job: UploadJob): Promise<Admission> => {
      const file = byId.get(job.id) ?? this.state.queue.files.find((f) => f.id === job.id);
      if (!file) return { go: false, reason: 'unreadable' };
      const probe = await this.probe(file.id, file.file);
      if (probe.kind === 'unreadable') return { go: false, reason: 'unreadable' };
      if (!probe.isJpeg) return { go: false, reason: 'not-jpeg' };
      // Asked again just before sending: another tab may have sent it meanwhile. A journal that
      // cannot be read (storage broken or full) must not stop the upload: it is logged, and only
      // the record across reloads is lost.
      const entry = await services.journal.entries(this.scope, [probe.fingerprint]).then(
        (found) => found.get(probe.fingerprint),
        (error: unknown) => void services.logError('Could not read the upload journal', error),
      );
      if (entry?.status === 'uploaded') return { go: false, reason: 'already-uploaded' };
      const key = entry?.key ?? file.key;
      const target = entry?.target ?? file.target ?? this.targetFor(undefined);
      const journaled: JournalEntry = {
        ...this.entryFor({ ...file, key }, probe.fingerprint, batchId),
        target: { level: target.level, cameraName: target.cameraName },
      };
      // Recorded with its key and target before a byte is sent: a crash mid-upload resumes it
      // under the same key, so it never becomes two objects.
      this.claimed.add(file.id);
      this.sending.set(file.id, { key, target: { ...target, ranchId }, entry: journaled, exif: probe.exif });
      await services.journal.putEntries([journaled]).catch((error: unknown) => services.logError('Could not write the upload journal', error));
      return { go: true, key };
    };

    const engine = runBatch(
      files.map((f) => ({ id: f.id, key: f.key, file: f.file })),
      {
        concurrency: this.options.concurrency,
        limit,
        retry: services.retry,
        stallMs: this.options.stallMs ?? services.stallMs,
        allowance: () => remainingOf(this.state.allowance) ?? 0,
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
      },
      emit,
    );
    this.engine = engine;
    if (!services.network.online()) this.pause('offline');
    else if (this.state.paused.length > 0) engine.pause();

    const result = await engine.done;
    if (timer !== null) services.timers.clearTimeout(timer);
    flush();
    const groups = groupCameras(sentExif);
    if (cameraName && groups.length === 1) services.prefs.rememberCamera(ranchId, groups[0]!.key, cameraName);
    const measured = meter.rate();
    if (measured) services.prefs.setRecentSpeed(measured);
    this.meter = null;
    this.set({ speed: null, recentSpeed: measured ?? this.state.recentSpeed });
    this.engine = null;
    this.sending.clear();
    this.releaseLock?.();
    this.releaseLock = null;
    this.dispatch({ type: 'batch-ended' });
    this.set({ paused: [], announcement: progressAnnouncement({ kind: 'ended', uploaded: result.succeeded, failed: result.failed, stopped: result.stopped }) });
    services.tabs.post({ type: 'batch-ended', owner: this.identity.owner, ranchId });
    void this.fetchUsage();
    if (this.state.queue.files.length === 0 && this.state.queue.checks.kind === 'idle' && this.batchId === batchId) {
      // Everything went up: the batch is done (its entries stay as the record of what was sent).
      this.batchId = null;
      this.sources = [];
      await services.journal.endBatch(batchId).catch((error: unknown) => services.logError('Could not write the upload journal', error));
    }
  }

  // --- pause and resume ------------------------------------------------------------------------

  private pause(reason: PauseReason): void {
    if (this.state.paused.includes(reason)) return;
    this.set({ paused: [...this.state.paused, reason] });
    if (!this.engine) return;
    this.engine.pause();
    // A pause is not slowness: the speed is measured again from where it resumes.
    this.meter?.reset(this.now());
    if (reason === 'session') {
      const { uploaded, total } = this.state.queue;
      this.set({ announcement: sessionPauseMessage(uploaded, total) });
      this.services.setPausedWorkNotice(sessionPauseMessage(uploaded, total));
    }
  }

  private unpause(reason: PauseReason, announcement?: string): void {
    if (!this.state.paused.includes(reason)) return;
    const paused = this.state.paused.filter((r) => r !== reason);
    this.set({ paused, ...(announcement ? { announcement } : {}) });
    if (reason === 'session') this.services.setPausedWorkNotice(null);
    if (paused.length === 0) {
      this.meter?.reset(this.now());
      this.engine?.resume();
    }
  }

  // --- the screen comes and goes ----------------------------------------------------------------

  /** The screen is shown (again): a batch paused for a lost session goes on for the same user. */
  attach(): void {
    this.refreshAccount();
    this.unpause('session', SESSION_RESUMED);
  }

  /**
   * The screen went away. A batch paused for the session keeps waiting for the sign-in; otherwise
   * leaving stops the batch (the leave guard asked first), and the journal keeps where it was.
   */
  detach(): void {
    if (this.state.paused.includes('session')) return;
    this.stop();
  }

  /** Another user or ranch took over, or the page goes: stops everything this controller holds. */
  dispose(): void {
    this.stop();
    this.services.setPausedWorkNotice(null);
    this.disposed = true;
    for (const off of this.unsubscribe) off();
    this.listeners.clear();
  }
}

/** A folder handle as kept in the journal, with the permission calls of the File System Access API. */
type KeptFolder = DirectoryHandleLike & {
  queryPermission?(descriptor: { mode: 'read' }): Promise<string>;
  requestPermission?(descriptor: { mode: 'read' }): Promise<string>;
};

/** A kept folder handle from the journal (structured-cloned), if it is one. */
function folderHandle(value: unknown): KeptFolder | null {
  if (typeof value !== 'object' || value === null) return null;
  const handle = value as Partial<DirectoryHandleLike>;
  return handle.kind === 'directory' && typeof handle.name === 'string' ? (value as KeptFolder) : null;
}
