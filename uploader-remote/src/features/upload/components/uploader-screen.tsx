import { useCallback, useMemo, useRef, useState, type ChangeEvent } from 'react';
import { confirmLeave, useBrand, useLeaveGuard, useUser } from '@trailsense/shared';
import type { ControllerOptions } from '../controller/batch-controller';
import { useBatchController } from '../hooks/use-batch-controller';
import { useBatchPresence } from '../hooks/use-batch-presence';
import { askOnce } from '../services/end-notification';
import {
  allowanceUnknownMessage,
  checkingMessage,
  formatCount,
  readingMessage,
  OFFLINE_PAUSE,
  OTHER_TAB_WAIT,
  overAllowanceQuestion,
  progressLabel,
  quotaMessage,
  DROP_ANYWHERE,
  KEEP_AWAKE_LABEL,
  keepAwakeNote,
  heldForOthersMessage,
  resumeOfferMessage,
  sessionPauseMessage,
  subscriptionMessage,
} from '../model/messages';
import { remainingOf, usedOf } from '../model/quota';
import { selectionFacts } from '../model/selection';
import { progressDetail } from '../model/speed-meter';
import { canUpload, percentOf } from '../model/upload-queue';
import { filesFromInput, walkEntries } from '../services/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import { ConfirmDialog } from './confirm-dialog';
import { DropZone, usePageDrop, type Dropped } from './drop-zone';
import { FileList } from './file-list';
import { InfoTip } from './info-tip';
import styles from './uploader.module.css';

const NO_FACTS = selectionFacts([], 0, null);

export const LEAVE_MESSAGE = 'Images are still uploading. Leave anyway? Uploads in progress will stop.';
const CAMERA_TIP = 'Pick a camera only for a batch from a camera that cannot name itself: every image in the batch is recorded as taken by it.';
const TRAINING_TIP = 'Use this for only a few (under 10) perfect example images.';

export interface UploaderScreenProps {
  services: UploaderServices;
  options: ControllerOptions;
}

/** /uploader (docs/product.md#uploader): the signed-in bulk uploader. Thin: state lives in the batch controller. */
export function UploaderScreen(props: UploaderScreenProps) {
  const user = useUser();
  if (user.status !== 'authenticated') {
    return (
      <section className={styles.uploader} aria-labelledby="uploader-title">
        <h1 id="uploader-title">Upload Images</h1>
        <p>{user.status === 'configuring' ? 'Checking your session…' : 'Please sign in to upload images.'}</p>
      </section>
    );
  }
  const { sub, email, ranchId } = user.user;
  if (!ranchId) return <NoRanch email={email} signOut={user.signOut} />;
  return <SignedInUploader {...props} owner={sub} email={email} ranchId={ranchId} signOut={user.signOut} />;
}

function Greeting({ email, ranchId }: { email: string; ranchId?: string }) {
  return (
    <p>
      Hello <strong>{email}</strong>
      {ranchId ? (
        <>
          , ranch ID <strong>{ranchId}</strong>
        </>
      ) : (
        <>. Your account is not linked to a ranch yet, so images cannot be uploaded.</>
      )}
    </p>
  );
}

/** docs/product.md#uploader-rules: without a ranch id, Add Images is disabled and the upload buttons are hidden. */
function NoRanch({ email, signOut }: { email: string; signOut: () => Promise<void> }) {
  return (
    <section className={styles.uploader} aria-labelledby="uploader-title">
      <h1 id="uploader-title">Upload Images</h1>
      <Greeting email={email} />
      <div className={styles.controls}>
        <button type="button" className={`${styles.button} ${styles.primary}`} disabled>
          Add Images
        </button>
        <button type="button" className={styles.button} disabled>
          Add Folder
        </button>
      </div>
      <p>
        <button type="button" className={styles.button} onClick={() => void signOut()}>
          Sign Out
        </button>
      </p>
    </section>
  );
}

interface SignedInProps extends UploaderScreenProps {
  owner: string;
  email: string;
  ranchId: string;
  signOut: () => Promise<void>;
}

function SignedInUploader({ services, options, owner, email, ranchId, signOut }: SignedInProps) {
  const { controller, state } = useBatchController(services, { owner, email, ranchId }, options);
  const { queue, allowance, subscription, choices } = state;
  const input = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const running = queue.batch.kind === 'running';
  const remaining = remainingOf(allowance);
  useLeaveGuard(running, LEAVE_MESSAGE);
  const [keepAwake, setKeepAwake] = useState(() => services.prefs.keepAwake());
  const wakeStatus = useBatchPresence(state, services, useBrand().productName, keepAwake);
  const sending = running && state.paused.length === 0;
  // One pass over the list per change of it, and none while a batch runs (every progress flush
  // changes the list, and the summary and notices are for before Upload).
  const facts = useMemo(
    () => (running ? NO_FACTS : selectionFacts(queue.files, services.now().getTime(), state.recentSpeed)),
    [running, queue.files, state.recentSpeed, services],
  );

  // Stable, so the list's memoised rows do not re-render on every progress flush.
  const onRemove = useCallback((id: string) => controller.remove(id), [controller]);
  const onRetry = useCallback((id: string) => controller.retryFile(id), [controller]);
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
  const onDrop = ({ entries, files }: Dropped) => {
    if (entries.length === 0) return controller.addFiles(files);
    controller.addWalk(async (onProgress) => {
      const walked = await walkEntries(entries, { onProgress });
      return { files: [...files.map((file) => ({ file, path: file.name })), ...walked.files], unreadable: walked.unreadable };
    });
  };
  const dragging = usePageDrop(onDrop, running);
  const onResume = () => {
    if (state.offer?.folder) {
      void controller.resumeFromFolder();
      return;
    }
    controller.resumeOffer();
    input.current?.click();
  };
  const onSignOut = () => {
    if (!confirmLeave()) return;
    controller.stop();
    void signOut();
  };
  const errors = useMemo(
    () => [subscription.kind === 'failed' ? subscription.message : null, queue.error].filter((e): e is string => !!e),
    [subscription, queue.error],
  );
  const pauseNotes = [
    ...(state.paused.includes('offline') ? [OFFLINE_PAUSE] : []),
    ...(state.paused.includes('session') && running ? [sessionPauseMessage(queue.uploaded, queue.total)] : []),
    ...(state.waitingForOtherTab ? [OTHER_TAB_WAIT] : []),
  ];

  return (
    <section className={styles.uploader} aria-labelledby="uploader-title">
      {dragging && (
        // Seen, not announced: the zone's text says the same to a screen reader.
        <div className={styles.dropOverlay} aria-hidden="true" data-testid="drop-overlay">
          <p>{running ? 'Files can be added when this batch ends.' : DROP_ANYWHERE}</p>
        </div>
      )}
      <h1 id="uploader-title">Upload Images</h1>
      <Greeting email={email} ranchId={ranchId} />
      {/* Both lines keep the place of their final text while it is fetched (no layout shift). */}
      <p className={styles.statusLine}>
        {subscription.kind === 'known' ? subscriptionMessage(subscription.active) : subscription.kind === 'loading' ? 'Checking your subscription…' : null}
      </p>
      {allowance.kind === 'unknown' ? (
        <div className={styles.allowanceProblem} role="alert">
          <p>{allowanceUnknownMessage(allowance.reason)}</p>
          <button type="button" className={styles.button} onClick={() => controller.retryAllowance()}>
            Try again
          </button>
        </div>
      ) : (
        <p className={styles.quotaLine}>
          {allowance.kind === 'known' ? quotaMessage(usedOf(allowance), allowance.limit, remainingOf(allowance) ?? 0) : 'Checking your upload quota…'}
          {allowance.kind === 'known' && allowance.held > 0 && ` ${heldForOthersMessage(allowance.held)}`}
        </p>
      )}

      {state.offer && (
        <div className={styles.resume} role="status">
          <p>{resumeOfferMessage(state.offer.uploaded, state.offer.total, state.offer.lastActivity, state.offer.folder)}</p>
          <div className={styles.actions}>
            <button type="button" className={`${styles.button} ${styles.primary}`} onClick={onResume}>
              Resume
            </button>
            <button type="button" className={styles.button} onClick={() => void controller.discardOffer()}>
              Discard
            </button>
          </div>
        </div>
      )}

      <div className={styles.errors} role="alert">
        {errors.map((e) => (
          <p key={e}>{e}</p>
        ))}
        {queue.failures > 0 && <p>Failed uploads: {formatCount(queue.failures)}</p>}
      </div>

      <DropZone disabled={running} onDrop={onDrop}>
        <div className={styles.controls}>
          <input
            ref={input}
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
          <button type="button" className={`${styles.button} ${styles.primary}`} disabled={running} onClick={() => input.current?.click()}>
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
              {state.cameras.map((c) => (
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
      </DropZone>

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
        {facts.clock && <p>{facts.clock}</p>}
      </div>

      <h2>Files</h2>
      {facts.summary && (
        <p className={styles.summary} data-testid="selection-summary">
          {facts.summary}
        </p>
      )}
      <div className={styles.actions}>
        <button
          type="button"
          className={`${styles.button} ${styles.primary}`}
          disabled={!canUpload(queue, remaining)}
          onClick={() => {
            // The member's click: the one moment the browser lets the uploader ask (once) to notify them at the end.
            void askOnce(services.notifications, { asked: () => services.prefs.notificationsAsked(), markAsked: () => services.prefs.setNotificationsAsked() });
            controller.requestUpload();
          }}
        >
          Upload
        </button>
        <button type="button" className={styles.button} disabled={running || queue.files.length === 0} onClick={() => controller.clear()}>
          Clear List
        </button>
        {running && (
          <button type="button" className={styles.button} disabled={queue.batch.kind === 'running' && queue.batch.stopping} onClick={() => controller.stop()}>
            Stop
          </button>
        )}
      </div>
      <p className={styles.keepAwake}>
        {wakeStatus !== 'unsupported' && (
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
          {keepAwakeNote(wakeStatus, keepAwake, sending)}
        </span>
      </p>
      <FileList files={queue.files} busy={running} onRemove={onRemove} onRetry={onRetry} thumbnails={services.thumbnails} />

      <p>
        <button type="button" className={styles.button} onClick={onSignOut}>
          Sign Out
        </button>
      </p>
      {state.confirm && (
        <ConfirmDialog
          title="Upload limit"
          question={overAllowanceQuestion(state.confirm.remaining, state.confirm.listed)}
          onAnswer={(ok) => controller.answerConfirm(ok)}
        />
      )}
    </section>
  );
}
