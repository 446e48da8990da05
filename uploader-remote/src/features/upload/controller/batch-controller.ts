import { ALLOWANCE_USED_UP, allowanceUnknownMessage, FOLDER_NOT_ALLOWED, SESSION_RESUMED } from '../model/messages';
import { remainingOf } from '../model/quota';
import type { UploadCap } from '../model/upload-cap';
import { planUpload } from '../model/upload-queue';
import type { DirectoryHandleLike, WalkResult } from '../services/files/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import { AccountSync } from './account-sync';
import { BatchJournal, folderHandle } from './batch-journal';
import { CameraChoice } from './camera-choice';
import { Intake } from './intake';
import { formsOnServer } from '../model/photo-forms';
import { TRANSFORM_STAGES } from './stages';
import { StagePipeline } from './stages/pipeline';
import type { TransformStage } from './stages/stage';
import type { PhotoExif } from '../model/photo-exif';
import type { ListedFile } from '../model/upload-queue';
import { UploadRun } from './upload-run';
import { initialUploaderState, UploaderStore, type ChosenFile, type ControllerOptions, type UploaderIdentity, type UploaderState } from './uploader-state';

export type {
  ChosenFile,
  ControllerOptions,
  PauseReason,
  ResumeOffer,
  SpeedEstimate,
  SubscriptionState,
  UploaderIdentity,
  UploaderState,
} from './uploader-state';

/**
 * The uploader's batch, outside React (docs/style.md#where-logic-lives: a framework-free core under thin hooks): the list, the journal,
 * the background checks, the upload engine, pause and resume (offline, lost session), the
 * month's allowance, the lock and messages between tabs, analytics and announcements. The screen
 * reads `getState()` through `subscribe` (useSyncExternalStore) and calls its methods; tests
 * drive it without a DOM.
 *
 * This class is the facade the screen and the tests see; the work is in parts with one job each,
 * all writing to one store (uploader-state.ts): the account and allowance (account-sync.ts), the
 * batch's record in the journal and the resume offer (batch-journal.ts), the camera and training
 * choice (camera-choice.ts), what comes into the list and its checks (intake.ts), and the running
 * batch (upload-run.ts: its stages in stages/, its speed and milestones in batch-progress.ts).
 */
export class BatchController {
  private readonly store: UploaderStore;
  private readonly journal: BatchJournal;
  private readonly choice: CameraChoice;
  private readonly account: AccountSync;
  private readonly intake: Intake;
  private readonly run: UploadRun;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly stages: StagePipeline;
  private readonly stageList: readonly TransformStage[];

  constructor(
    private readonly services: UploaderServices,
    readonly identity: UploaderIdentity,
    options: ControllerOptions,
  ) {
    const { prefs } = services;
    const store = new UploaderStore(initialUploaderState(prefs.recentSpeed(), prefs.sendCopies(), prefs.uploadCap()));
    this.store = store;
    this.journal = new BatchJournal(store, services, { owner: identity.owner, ranchId: identity.ranchId });
    this.choice = new CameraChoice(store, services, identity.ranchId, this.journal);
    this.account = new AccountSync(store, services, identity, () => this.choice.suggest());
    // The run's transform stages (stages/index.ts): intake asks them what the ranch has of a photo too.
    this.stageList = options.transforms ?? TRANSFORM_STAGES;
    const stages = new StagePipeline(this.stageList);
    this.stages = stages;
    this.intake = new Intake(
      store,
      services,
      this.journal,
      () => this.choice.suggest(),
      (files) => this.run.join(files),
      {
        photos: (fingerprints) => services.uploads.lookupPhotos(identity.ranchId, fingerprints).then((answer) => formsOnServer(answer.known, answer.copies)),
        sizes: (sizes) => services.uploads.lookupSizes(identity.ranchId, sizes).then((answer) => new Set(answer.knownSizes)),
      },
      (facts) => stages.record(facts, store.getState()),
    );
    this.run = new UploadRun(store, services, identity, options, this.journal, this.intake, this.account, stages);
    this.unsubscribe.push(
      services.network.subscribe((online) => (online ? this.run.unpause('offline') : this.run.pause('offline'))),
      services.session.subscribe(() => this.run.pause('session')),
      services.tabs.subscribe((message) => {
        if (message.owner !== identity.owner || message.ranchId !== identity.ranchId) return;
        if (message.type === 'uploaded') this.account.recordSuccesses(message.at, message.count);
        else void this.account.fetchUsage();
      }),
    );
    void this.journal.loadOffer();
    void this.run.releaseAbandonedIfIdle();
  }

  // --- the external store -------------------------------------------------------------------

  readonly subscribe = (listener: () => void): (() => void) => this.store.subscribe(listener);

  readonly getState = (): UploaderState => this.store.getState();

  // --- the account: subscription, limit, usage, cameras ---------------------------------------

  /** Fetches everything the screen needs of the account (on open, and when the screen comes back). */
  refreshAccount(): void {
    this.account.refreshAccount();
  }

  /** Fetches this month's usage again (after a batch, Try again, another tab's batch). */
  fetchUsage(): Promise<void> {
    return this.account.fetchUsage();
  }

  /** "Try again" while the allowance is unknown: fetches what failed. */
  retryAllowance(): void {
    this.account.retryAllowance();
  }

  // --- choices and the resume offer ----------------------------------------------------------

  setCamera(camera: string): void {
    this.choice.setCamera(camera);
  }

  setTraining(training: boolean): void {
    this.choice.setTraining(training);
  }

  /** "Send smaller copies": remembered on this browser; the next batch sends as it says (a running one keeps its choice). */
  setSendCopies(on: boolean): void {
    this.store.set({ sendCopies: on });
    this.services.prefs.setSendCopies(on);
  }

  /** "Upload speed": remembered on this browser; a running batch follows it from its next upload. */
  setCap(cap: UploadCap): void {
    this.store.set({ cap });
    this.services.prefs.setUploadCap(cap);
  }

  /**
   * A transform stage's own settings (its panel's: stages/stage.ts StagePanelProps.save), kept
   * with the list's batch in the journal. Not while a batch runs: it keeps what it started with.
   */
  setStageSettings(stage: string, settings: unknown): void {
    if (this.run.running) return;
    const { stageSettings } = this.store.getState();
    this.store.set({ stageSettings: { ...stageSettings, [stage]: settings } });
    if (this.journal.currentId) void this.journal.saveBatch();
  }

  /** A listed photo's EXIF as the stages leave it with the settings on screen (the corrected capture time): what the list and summary show. */
  exifFor(file: ListedFile): PhotoExif | null {
    return this.stages.exif(file.exif ?? null, file, this.store.getState());
  }

  /** The run's transform stages, in their order (their panels are shown before Upload). */
  get transformStages(): readonly TransformStage[] {
    return this.stageList;
  }

  /**
   * Resume: the unfinished batch becomes the list's batch again, with its camera and training
   * choice. The files themselves must be picked again (the view opens the picker): those already
   * uploaded are skipped, the rest go with the keys they had.
   */
  resumeOffer(): void {
    const batch = this.journal.offer;
    if (!batch) return;
    this.journal.adoptOffer();
    this.choice.keep(batch.camera, batch.training);
  }

  /**
   * Resume from the kept folder: asks the browser to read it again (a prompt, or silently if
   * allowed) and lists it as if it was picked; what went up is skipped by the journal. Called from
   * the Resume click, whose user activation the permission prompt needs. False when there is no
   * folder or reading it was refused: the view then asks for a pick.
   */
  async resumeFromFolder(): Promise<boolean> {
    const handle = folderHandle(this.journal.offer?.folder);
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
      this.store.dispatch({ type: 'notice', text: FOLDER_NOT_ALLOWED });
      return false;
    }
    this.addFolder(handle);
    return true;
  }

  /** Discard: forgets the unfinished batch (what went up stays recorded) and offers the next, if any. */
  discardOffer(): Promise<void> {
    return this.journal.discardOffer();
  }

  // --- choosing files ------------------------------------------------------------------------

  /** Lists a selection (intake.ts says how it is checked). */
  addFiles(files: readonly ChosenFile[]): void {
    this.intake.addFiles(files);
  }

  /** Lists a folder the browser gave a handle for; the handle is kept with the batch so Resume can read it again. */
  addFolder(handle: DirectoryHandleLike): void {
    this.intake.addFolder(handle);
  }

  /** Lists what a walk finds (a dropped folder, a picked folder), with "Reading… N files" while it runs. */
  addWalk(walk: (onProgress: (found: number) => void) => Promise<WalkResult>): void {
    this.intake.addWalk(walk);
  }

  // --- the list ------------------------------------------------------------------------------

  remove(id: string): void {
    const file = this.store.getState().queue.files.find((f) => f.id === id);
    if (!file || this.run.running) return;
    this.store.dispatch({ type: 'file-removed', id });
    if (file.fingerprint && this.journal.currentId) void this.journal.releaseEntries([file]);
  }

  /** Clear List: empties the list and ends its batch in the journal (what went up stays recorded). */
  clear(): void {
    if (this.run.running) return;
    const batchId = this.journal.forget();
    this.intake.reset();
    this.choice.reset();
    this.store.set({ stageSettings: {} });
    this.store.dispatch({ type: 'list-cleared' });
    if (batchId) {
      void this.intake.checked.then(() => this.journal.end(batchId));
    }
  }

  // --- uploading -----------------------------------------------------------------------------

  /** Upload clicked: uploads, or asks the over-allowance question. */
  requestUpload(): void {
    const { queue, allowance } = this.store.getState();
    const plan = planUpload(queue, remainingOf(allowance));
    if (plan.kind === 'confirm') this.store.set({ confirm: { remaining: plan.remaining, listed: plan.listed } });
    // No count of its own: files still being checked join the batch when they are found to be
    // new, and the allowance (read before every start) bounds it all.
    else if (plan.kind === 'upload') void this.run.start(queue.files, Number.POSITIVE_INFINITY);
  }

  answerConfirm(uploadRemaining: boolean): void {
    const asked = this.store.getState().confirm;
    this.store.set({ confirm: null });
    if (!asked) return;
    if (uploadRemaining) void this.run.start(this.store.getState().queue.files, asked.remaining);
    else this.store.dispatch({ type: 'upload-declined' });
  }

  /** Retry on a failed file; says why when nothing can be sent. */
  retryFile(id: string): void {
    const { queue, allowance } = this.store.getState();
    const file = queue.files.find((f) => f.id === id);
    if (!file || this.run.running) return;
    const remaining = remainingOf(allowance);
    if (remaining === null) {
      const reason = allowance.kind === 'unknown' ? allowance.reason : 'it is still being checked';
      return this.store.dispatch({ type: 'notice', text: allowanceUnknownMessage(reason) });
    }
    if (remaining <= 0) return this.store.dispatch({ type: 'notice', text: ALLOWANCE_USED_UP });
    void this.run.start([file], 1);
  }

  /** Stop: nothing new starts; uploads in flight are aborted and go back to waiting. */
  stop(): void {
    this.run.stop();
  }

  // --- the screen comes and goes ----------------------------------------------------------------

  /** The screen is shown (again): a batch paused for a lost session goes on for the same user. */
  attach(): void {
    this.refreshAccount();
    this.run.unpause('session', SESSION_RESUMED);
  }

  /**
   * The screen went away. A batch paused for the session keeps waiting for the sign-in; otherwise
   * leaving stops the batch (the leave guard asked first), and the journal keeps where it was.
   */
  detach(): void {
    if (this.store.getState().paused.includes('session')) return;
    this.stop();
  }

  /** Another user or ranch took over, or the page goes: stops everything this controller holds. */
  dispose(): void {
    this.stop();
    this.services.setPausedWorkNotice(null);
    this.store.close();
    for (const off of this.unsubscribe) off();
    this.store.clearListeners();
  }
}
