import type { Camera } from '../services/api/api-client';
import type { ActiveSubscription, Allowance } from '../model/quota';
import { initialQueueState, queueReducer, type QueueAction, type QueueState } from '../model/upload-queue';
import type { FoundFile } from '../services/files/folder-walk';
import { NO_CAP, type UploadCap } from '../model/upload-cap';
import type { TransformStage } from './stages/stage';

/** The subscription as the screen knows it. */
export type SubscriptionState =
  | { kind: 'loading' }
  | { kind: 'known'; active: ActiveSubscription | null }
  /** docs/uploader.md#uploader-messages: shown in the error area. */
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
  /** The upload service asked to wait this many seconds before it is asked again (a 429 with `Retry-After`); null: it did not. */
  serverWait: { seconds: number; why: 'address' | 'busy' } | null;
  /** The latest polite announcement for screen readers. */
  announcement: string;
  /** A folder or a drop being read: how many files were found so far. */
  reading: { found: number } | null;
  /** The running batch's speed and time left. */
  speed: SpeedEstimate | null;
  /** The speed of recent batches on this browser (bytes/s), for the summary's estimate. */
  recentSpeed: number | null;
  /** "Send smaller copies" (docs/uploader.md#smaller-copies): remembered per browser, off by default. */
  sendCopies: boolean;
  /** "Upload speed" (docs/uploader.md#sending-over-a-rural-link): remembered per browser, none by default; a running batch follows it. */
  cap: UploadCap;
  /** The transform stages' own settings, by stage name (stages/stage.ts StageChoices): kept with the batch. */
  stageSettings: Readonly<Record<string, unknown>>;
}

/** Who the controller uploads for. */
export interface UploaderIdentity {
  /** The user's `sub`: the journal's owner. */
  owner: string;
  email: string;
  ranchId: string;
}

export interface ControllerOptions {
  /** Uploads at once: 'fit' (the link decides: model/link-fit.ts) or a fixed number (`?concurrency=N`). */
  concurrency: number | 'fit';
  /** Overrides the services' stall bound (`?stall=N`). */
  stallMs?: number;
  /**
   * Every photo goes under this reservation, with no slot calls (`?reservation=<id>`): for a
   * benchmark measuring what the calls cost. The server counts each photo against it as it would
   * any other (past its slots, only while the ceiling has room); photos it already has are not
   * skipped before sending.
   */
  reservation?: string;
  /** The run's transform stages, in order (stages/index.ts TRANSFORM_STAGES by default); tests plug in their own. */
  transforms?: readonly TransformStage[];
}

/** What a selection is made of: files from an input (their own relative path) or found in a folder. */
export type ChosenFile = File | FoundFile;

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The screen's state before anything is known: the recent speed is the one thing read at once. */
export function initialUploaderState(recentSpeed: number | null, sendCopies = false, cap: UploadCap = NO_CAP): UploaderState {
  return {
    queue: initialQueueState,
    subscription: { kind: 'loading' },
    allowance: { kind: 'loading' },
    cameras: [],
    choices: { camera: '', training: false },
    confirm: null,
    offer: null,
    paused: [],
    waitingForOtherTab: false,
    serverWait: null,
    announcement: '',
    reading: null,
    speed: null,
    recentSpeed,
    sendCopies,
    cap,
    stageSettings: {},
  };
}

/**
 * The external store every part of the batch controller writes to (docs/style.md#where-logic-lives):
 * one immutable `UploaderState` per change, read by the screen through `subscribe` and `getState`
 * (useSyncExternalStore). Once closed it takes no more changes: a part still finishing work of a
 * disposed controller writes nowhere.
 */
export class UploaderStore {
  private state: UploaderState;
  private readonly listeners = new Set<() => void>();
  private closed = false;

  constructor(initial: UploaderState) {
    this.state = initial;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): UploaderState => this.state;

  /** The controller was disposed: long work (reading a card, a lock wait) checks this to stop. */
  get disposed(): boolean {
    return this.closed;
  }

  set(patch: Partial<UploaderState>): void {
    if (this.closed) return;
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  dispatch(action: QueueAction): void {
    const queue = queueReducer(this.state.queue, action);
    if (queue !== this.state.queue) this.set({ queue });
  }

  close(): void {
    this.closed = true;
  }

  clearListeners(): void {
    this.listeners.clear();
  }
}
