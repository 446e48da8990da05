import { useRef, type ChangeEvent, type RefObject } from 'react';
import type { BatchController } from '../controller/batch-controller';
import type { ResumeOffer, UploaderState } from '../controller/uploader-state';
import {
  allowanceUnknownMessage,
  checkingMessage,
  heldForOthersMessage,
  KEEP_AWAKE_LABEL,
  keepAwakeNote,
  OFFLINE_PAUSE,
  OTHER_TAB_WAIT,
  serverWaitMessage,
  progressLabel,
  quotaMessage,
  readingMessage,
  resumeOfferMessage,
  SEND_COPIES_LABEL,
  sendCopiesNote,
  sessionPauseMessage,
  subscriptionMessage,
  SUGGEST_COPIES,
} from '../model/messages';
import { COPY_SPEEDUP } from '../model/photo-forms';
import { COPY_LONG_EDGE } from '../model/smaller-copy';
import { remainingOf, usedOf } from '../model/quota';
import type { selectionFacts } from '../model/selection';
import { progressDetail } from '../model/speed-meter';
import { percentOf } from '../model/upload-queue';
import { filesFromInput } from '../services/files/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import type { WakeLockStatus } from '../services/browser/wake-lock';
import { InfoTip } from './info-tip';
import styles from './uploader.module.css';

// The uploader screen's panels (uploader-screen.tsx lays them out): each draws one part of the
// controller's state and hands the member's actions back to it.

const CAMERA_TIP = 'Pick a camera only for a batch from a camera that cannot name itself: every image in the batch is recorded as taken by it.';
const TRAINING_TIP = 'Use this for only a few (under 10) perfect example images.';

/** The subscription line and the monthly allowance (or why it is unknown, with Try again). */
export function AccountStatus({ subscription, allowance, onRetry }: Pick<UploaderState, 'subscription' | 'allowance'> & { onRetry: () => void }) {
  return (
    <>
      {/* Both lines keep the place of their final text while it is fetched (no layout shift). */}
      <p className={styles.statusLine}>
        {subscription.kind === 'known' ? subscriptionMessage(subscription.active) : subscription.kind === 'loading' ? 'Checking your subscription…' : null}
      </p>
      {allowance.kind === 'unknown' ? (
        <div className={styles.allowanceProblem} role="alert">
          <p>{allowanceUnknownMessage(allowance.reason)}</p>
          <button type="button" className={styles.button} onClick={onRetry}>
            Try again
          </button>
        </div>
      ) : (
        <p className={styles.quotaLine}>
          {allowance.kind === 'known' ? quotaMessage(usedOf(allowance), allowance.limit, remainingOf(allowance) ?? 0) : 'Checking your upload quota…'}
          {allowance.kind === 'known' && allowance.held > 0 && ` ${heldForOthersMessage(allowance.held)}`}
        </p>
      )}
    </>
  );
}

/** The offer to resume an unfinished batch. */
export function ResumeOfferPanel({ offer, onResume, onDiscard }: { offer: ResumeOffer; onResume: () => void; onDiscard: () => void }) {
  return (
    <div className={styles.resume} role="status">
      <p>{resumeOfferMessage(offer.uploaded, offer.total, offer.lastActivity, offer.folder)}</p>
      <div className={styles.actions}>
        <button type="button" className={`${styles.button} ${styles.primary}`} onClick={onResume}>
          Resume
        </button>
        <button type="button" className={styles.button} onClick={onDiscard}>
          Discard
        </button>
      </div>
    </div>
  );
}

interface PickersProps {
  controller: BatchController;
  running: boolean;
  choices: UploaderState['choices'];
  cameras: UploaderState['cameras'];
  /** The file input (the screen's Resume opens it too). */
  fileInput: RefObject<HTMLInputElement | null>;
}

/** Add Images, Add Folder, the camera and the training choice. */
export function Pickers({ controller, running, choices, cameras, fileInput }: PickersProps) {
  const folderInput = useRef<HTMLInputElement>(null);
  const onFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.currentTarget.files ?? []);
    event.currentTarget.value = '';
    controller.addFiles(files);
  };
  const onFolderInput = (event: ChangeEvent<HTMLInputElement>) => {
    const found = filesFromInput(event.currentTarget.files ?? []);
    event.currentTarget.value = '';
    controller.addFiles(found);
  };
  const onAddFolder = () => {
    // The File System Access API where the browser has it: its handle can be kept for Resume.
    // Elsewhere (and if it throws), the directory input.
    const picker = (window as { showDirectoryPicker?: (options: { id: string; mode: 'read' }) => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker;
    if (!picker) return folderInput.current?.click();
    picker({ id: 'trailsense-card', mode: 'read' }).then(
      (handle) => controller.addFolder(handle as unknown as Parameters<typeof controller.addFolder>[0]),
      (error: unknown) => {
        // Closing the picker is no error.
        if ((error as { name?: unknown } | null)?.name !== 'AbortError') folderInput.current?.click();
      },
    );
  };

  return (
    <div className={styles.controls}>
      <input
        ref={fileInput}
        type="file"
        multiple
        accept=".jpg,.jpeg,image/jpeg"
        className={styles.visuallyHidden}
        tabIndex={-1}
        aria-hidden="true"
        onChange={onFiles}
      />
      <input
        ref={folderInput}
        type="file"
        // React passes unknown attributes through: the directory picker of every browser.
        {...{ webkitdirectory: '', directory: '' }}
        className={styles.visuallyHidden}
        tabIndex={-1}
        aria-hidden="true"
        data-testid="folder-input"
        onChange={onFolderInput}
      />
      <button type="button" className={`${styles.button} ${styles.primary}`} disabled={running} onClick={() => fileInput.current?.click()}>
        Add Images
      </button>
      <button type="button" className={styles.button} disabled={running} onClick={onAddFolder}>
        Add Folder
      </button>
      <span className={styles.field}>
        <label htmlFor="uploader-camera">Camera</label>
        <select
          id="uploader-camera"
          value={choices.camera}
          aria-describedby="tip-camera"
          onChange={(e) => controller.setCamera(e.currentTarget.value)}
          disabled={running}
        >
          <option value="">Indicate camera</option>
          {cameras.map((c) => (
            <option key={c.id} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
        <InfoTip id="tip-camera" label="About the camera choice" text={CAMERA_TIP} />
      </span>
      <span className={`${styles.field} ${styles.check}`}>
        <input
          id="uploader-training"
          type="checkbox"
          checked={choices.training}
          aria-describedby="tip-training"
          onChange={(e) => controller.setTraining(e.currentTarget.checked)}
          disabled={running}
        />
        <label htmlFor="uploader-training">Use these files for training the model</label>
        <InfoTip id="tip-training" label="About training images" text={TRAINING_TIP} />
      </span>
    </div>
  );
}

/** The batch's progress, its pauses, the background checks and the notices about the list. */
export function BatchStatus({ state, running, facts }: { state: UploaderState; running: boolean; facts: ReturnType<typeof selectionFacts> }) {
  const { queue } = state;
  const pauseNotes = [
    ...(state.paused.includes('offline') ? [OFFLINE_PAUSE] : []),
    ...(state.paused.includes('session') && running ? [sessionPauseMessage(queue.uploaded, queue.total)] : []),
    ...(state.waitingForOtherTab ? [OTHER_TAB_WAIT] : []),
    ...(state.serverWait ? [serverWaitMessage(state.serverWait.seconds, state.serverWait.why)] : []),
  ];

  return (
    <>
      <div className={styles.progress}>
        <progress id="uploader-progress" max={100} value={percentOf(queue)} aria-labelledby="uploader-progress-label" />
        <p id="uploader-progress-label">{progressLabel(queue.uploaded, queue.total)}</p>
        {state.speed && <p className={styles.speed}>{progressDetail({ rate: state.speed.bytesPerSecond, secondsLeft: state.speed.secondsLeft })}</p>}
        <p className={styles.visuallyHidden} role="status">
          {state.announcement}
        </p>
      </div>

      <div className={styles.paused} role="status">
        {pauseNotes.map((note) => (
          <p key={note}>{note}</p>
        ))}
      </div>

      {/* Polite, and worded once per check (not a running count), so a screen reader hears it once. */}
      <p role="status">{state.reading ? readingMessage(state.reading.found) : queue.checks.kind === 'running' ? checkingMessage(queue.checks.files) : ''}</p>

      <div className={styles.notice} role="status" data-testid="uploader-notice">
        {queue.notice && <p>{queue.notice}</p>}
        {facts.mixedCameras && <p>{facts.mixedCameras}</p>}
      </div>
    </>
  );
}

interface KeepAwakeProps {
  services: Pick<UploaderServices, 'prefs'>;
  status: WakeLockStatus;
  keepAwake: boolean;
  setKeepAwake: (on: boolean) => void;
  sending: boolean;
}

/** The choice to keep the computer awake while a batch sends, and what the browser allows. */
export function KeepAwake({ services, status, keepAwake, setKeepAwake, sending }: KeepAwakeProps) {
  return (
    <p className={styles.keepAwake}>
      {status !== 'unsupported' && (
        <>
          <input
            id="uploader-keep-awake"
            type="checkbox"
            checked={keepAwake}
            onChange={(event) => {
              setKeepAwake(event.currentTarget.checked);
              services.prefs.setKeepAwake(event.currentTarget.checked);
            }}
          />{' '}
          <label htmlFor="uploader-keep-awake">{KEEP_AWAKE_LABEL}</label>{' '}
        </>
      )}
      <span className={styles.keepAwakeNote} data-testid="keep-awake-note">
        {keepAwakeNote(status, keepAwake, sending)}
      </span>
    </p>
  );
}

interface SmallerCopiesProps {
  controller: Pick<BatchController, 'setSendCopies'>;
  sendCopies: boolean;
  running: boolean;
  /** "Originals: about 21 h · Smaller copies: about 3 h" when the originals would take hours, else null. */
  estimates: string | null;
}

/**
 * "Send smaller copies" (docs/uploader.md#smaller-copies): the choice, its one line, and — when the
 * originals would take hours at the recent speed — both estimates, with the suggestion while it
 * is off. The uploader never switches by itself.
 */
export function SmallerCopies({ controller, sendCopies, running, estimates }: SmallerCopiesProps) {
  return (
    <div className={styles.copies}>
      <p className={`${styles.field} ${styles.check}`}>
        <input
          id="uploader-copies"
          type="checkbox"
          checked={sendCopies}
          aria-describedby="uploader-copies-note"
          onChange={(e) => controller.setSendCopies(e.currentTarget.checked)}
          disabled={running}
        />{' '}
        <label htmlFor="uploader-copies">{SEND_COPIES_LABEL}</label>
      </p>
      <p id="uploader-copies-note" className={styles.copiesNote}>
        {sendCopiesNote(COPY_SPEEDUP, COPY_LONG_EDGE)}
      </p>
      {estimates && (
        <p className={styles.copiesNote} data-testid="copies-estimates">
          {estimates}
          {!sendCopies && (
            <>
              <br />
              <strong>{SUGGEST_COPIES}</strong>
            </>
          )}
        </p>
      )}
    </div>
  );
}
