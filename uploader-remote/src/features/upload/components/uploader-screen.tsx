import { useCallback, useMemo, useRef, useState } from 'react';
import { confirmLeave, useBrand, useLeaveGuard, useUser } from '@trailsense/shared';
import type { ControllerOptions } from '../controller/batch-controller';
import { useBatchController } from '../hooks/use-batch-controller';
import { useBatchPresence } from '../hooks/use-batch-presence';
import { askOnce } from '../services/browser/end-notification';
import { DROP_ANYWHERE, formatCount, overAllowanceQuestion } from '../model/messages';
import { remainingOf } from '../model/quota';
import { selectionFacts } from '../model/selection';
import { canUpload, type ListedFile } from '../model/upload-queue';
import { walkEntries } from '../services/files/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import { ConfirmDialog } from './confirm-dialog';
import { DropZone, usePageDrop, type Dropped } from './drop-zone';
import { FileList } from './file-list';
import { AccountStatus, BatchStatus, KeepAwake, Pickers, ResumeOfferPanel, SmallerCopies } from './uploader-panels';
import { UploadSpeed } from './upload-speed';
import { capRate, cappedSpeed } from '../model/upload-cap';
import styles from './uploader.module.css';

const NO_FACTS = selectionFacts([], 0, null);

export const LEAVE_MESSAGE = 'Images are still uploading. Leave anyway? Uploads in progress will stop.';

export interface UploaderScreenProps {
  services: UploaderServices;
  options: ControllerOptions;
}

/** /uploader (docs/uploader.md#uploader): the signed-in bulk uploader. Thin: state lives in the batch controller. */
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

/** docs/uploader.md#uploader-rules: without a ranch id, Add Images is disabled and the upload buttons are hidden. */
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
  const running = queue.batch.kind === 'running';
  const remaining = remainingOf(allowance);
  useLeaveGuard(running, LEAVE_MESSAGE);
  const [keepAwake, setKeepAwake] = useState(() => services.prefs.keepAwake());
  const wakeStatus = useBatchPresence(state, services, useBrand().productName, keepAwake);
  const sending = running && state.paused.length === 0;
  // One pass over the list per change of it, and none while a batch runs (every progress flush
  // changes the list, and the summary and notices are for before Upload).
  // The estimates before Upload follow the member's cap ("Upload speed").
  const speed = cappedSpeed(state.recentSpeed, capRate(state.cap, state.recentSpeed));
  const capped = speed !== null && speed !== state.recentSpeed;
  // What the list and summary show of a photo: its EXIF as the stages leave it (a corrected clock).
  const { stageSettings } = state;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- a new function per change of the stages' settings, on purpose
  const exifOf = useCallback((file: ListedFile) => controller.exifFor(file), [controller, stageSettings]);
  const facts = useMemo(
    () => (running ? NO_FACTS : selectionFacts(queue.files, services.now().getTime(), speed, state.sendCopies, capped, exifOf)),
    [running, queue.files, speed, state.sendCopies, capped, services, exifOf],
  );

  // Stable, so the list's memoised rows do not re-render on every progress flush.
  const onRemove = useCallback((id: string) => controller.remove(id), [controller]);
  const onRetry = useCallback((id: string) => controller.retryFile(id), [controller]);
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
      <AccountStatus subscription={subscription} allowance={allowance} onRetry={() => controller.retryAllowance()} />
      {state.offer && <ResumeOfferPanel offer={state.offer} onResume={onResume} onDiscard={() => void controller.discardOffer()} />}

      <div className={styles.errors} role="alert">
        {errors.map((e) => (
          <p key={e}>{e}</p>
        ))}
        {queue.failures > 0 && <p>Failed uploads: {formatCount(queue.failures)}</p>}
      </div>

      <DropZone disabled={running} onDrop={onDrop}>
        <Pickers controller={controller} running={running} choices={choices} cameras={state.cameras} fileInput={input} />
      </DropZone>

      <BatchStatus state={state} running={running} facts={facts} />

      <h2>Files</h2>
      {facts.summary && (
        <p className={styles.summary} data-testid="selection-summary">
          {facts.summary}
        </p>
      )}
      {controller.transformStages.map(
        ({ name, panel: Panel }) =>
          Panel && (
            <Panel
              key={name}
              files={queue.files}
              settings={stageSettings[name]}
              save={(settings) => controller.setStageSettings(name, settings)}
              camera={choices.camera}
              now={services.now().getTime()}
              running={running}
              thumbnails={services.thumbnails}
            />
          ),
      )}
      <SmallerCopies controller={controller} sendCopies={state.sendCopies} running={running} estimates={facts.estimates} />
      <UploadSpeed controller={controller} cap={state.cap} linkSpeed={state.recentSpeed} />
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
      <KeepAwake services={services} status={wakeStatus} keepAwake={keepAwake} setKeepAwake={setKeepAwake} sending={sending} />
      <FileList files={queue.files} exifOf={exifOf} busy={running} onRemove={onRemove} onRetry={onRetry} thumbnails={services.thumbnails} />

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
