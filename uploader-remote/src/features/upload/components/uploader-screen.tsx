import { useCallback, useMemo, useRef, useState, type ChangeEvent } from 'react';
import { confirmLeave, useLeaveGuard, useUser } from '@trailsense/shared';
import { useAccount } from '../hooks/use-account';
import { useUploader } from '../hooks/use-uploader';
import { checkingMessage, overAllowanceQuestion, progressLabel, quotaMessage, subscriptionMessage, formatCount } from '../model/messages';
import { canUpload, percentOf } from '../model/upload-queue';
import type { UploadTarget } from '../services/amplify-storage';
import type { UploaderServices } from '../services/uploader-services';
import { ConfirmDialog } from './confirm-dialog';
import { FileList } from './file-list';
import { InfoTip } from './info-tip';
import { UPLOADER_CSS } from './uploader-css';

export const LEAVE_MESSAGE = 'Images are still uploading. Leave anyway? Uploads in progress will stop.';
const CAMERA_TIP = 'Pick a camera only for a batch from a camera that cannot name itself: every image in the batch is recorded as taken by it.';
const TRAINING_TIP = 'Use this for only a few (under 10) perfect example images.';

export interface UploaderScreenProps {
  services: UploaderServices;
  concurrency: number;
}

/** /uploader (SPEC.md §2): the signed-in bulk uploader. Thin: state lives in the hooks. */
export function UploaderScreen(props: UploaderScreenProps) {
  const user = useUser();
  if (user.status !== 'authenticated') {
    return (
      <section className="page uploader" aria-labelledby="uploader-title">
        <h1 id="uploader-title">Upload Images</h1>
        <p>{user.status === 'configuring' ? 'Checking your session…' : 'Please sign in to upload images.'}</p>
      </section>
    );
  }
  return <SignedInUploader {...props} email={user.user.email} ranchId={user.user.ranchId} signOut={user.signOut} />;
}

interface SignedInProps extends UploaderScreenProps {
  email: string;
  ranchId: string | undefined;
  signOut: () => Promise<void>;
}

function SignedInUploader({ services, concurrency, email, ranchId, signOut }: SignedInProps) {
  const account = useAccount(services, email, ranchId);
  const [camera, setCamera] = useState('');
  const [training, setTraining] = useState(false);
  const choices = useRef({ camera, training });
  choices.current = { camera, training };
  const input = useRef<HTMLInputElement>(null);
  const remaining = account.quota.kind === 'known' ? account.quota.remaining : null;
  const target = useCallback(
    (): UploadTarget => ({ level: choices.current.training ? 'private' : 'public', ranchId: ranchId ?? '', cameraName: choices.current.camera }),
    [ranchId],
  );
  const onBatchEnd = useCallback(() => void account.refreshQuota(), [account.refreshQuota]);
  const uploader = useUploader({ services, remaining, target, concurrency, onBatchEnd });
  const { state } = uploader;
  const running = state.batch.kind === 'running';
  useLeaveGuard(running, LEAVE_MESSAGE);

  const onFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.currentTarget.files ?? []);
    event.currentTarget.value = '';
    uploader.addFiles(files);
  };
  const onSignOut = () => {
    if (!confirmLeave()) return;
    uploader.stop();
    void signOut();
  };
  const errors = useMemo(
    () => [account.subscription.kind === 'failed' ? account.subscription.message : null, state.error].filter((e): e is string => !!e),
    [account.subscription, state.error],
  );
  const percent = percentOf(state);

  return (
    <section className="page uploader" aria-labelledby="uploader-title">
      <style>{UPLOADER_CSS}</style>
      <h1 id="uploader-title">Upload Images</h1>
      <p className="uploader__greeting">
        Hello <strong>{email}</strong>
        {ranchId ? (
          <>
            , ranch ID <strong>{ranchId}</strong>
          </>
        ) : (
          <>. Your account is not linked to a ranch yet, so images cannot be uploaded.</>
        )}
      </p>
      <p>{account.subscription.kind === 'known' ? subscriptionMessage(account.subscription.active) : account.subscription.kind === 'loading' ? 'Checking your subscription…' : null}</p>
      <p>{account.quota.kind === 'known' ? quotaMessage(account.quota.uploaded, account.quota.limit, account.quota.remaining) : 'Checking your upload quota…'}</p>

      <div className="uploader__errors" role="alert">
        {errors.map((e) => (
          <p key={e}>{e}</p>
        ))}
        {state.failures > 0 && <p>Failed uploads: {formatCount(state.failures)}</p>}
      </div>

      <div className="uploader__controls">
        <input ref={input} type="file" multiple accept=".jpg,.jpeg,image/jpeg" className="visually-hidden" tabIndex={-1} aria-hidden="true" onChange={onFiles} disabled={!ranchId} />
        <button type="button" className="button button--primary" disabled={!ranchId || running} onClick={() => input.current?.click()}>
          Add Images
        </button>
        <span className="field">
          <label htmlFor="uploader-camera">Camera</label>
          <select id="uploader-camera" value={camera} aria-describedby="tip-camera" onChange={(e) => setCamera(e.currentTarget.value)} disabled={running}>
            <option value="">Indicate camera</option>
            {account.cameras.map((c) => (
              <option key={c.id} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
          <InfoTip id="tip-camera" label="About the camera choice" text={CAMERA_TIP} />
        </span>
        <span className="field">
          <input id="uploader-training" type="checkbox" checked={training} aria-describedby="tip-training" onChange={(e) => setTraining(e.currentTarget.checked)} disabled={running} />
          <label htmlFor="uploader-training">Use these files for training the model</label>
          <InfoTip id="tip-training" label="About training images" text={TRAINING_TIP} />
        </span>
      </div>

      <div className="uploader__progress">
        <progress id="uploader-progress" max={100} value={percent} aria-labelledby="uploader-progress-label" />
        <p id="uploader-progress-label">{progressLabel(state.uploaded, state.total)}</p>
        <p className="visually-hidden" role="status">
          {uploader.announcement}
        </p>
      </div>

      {/* Polite, and worded once per check (not a running count), so a screen reader hears it once. */}
      <p className="uploader__checking" role="status">
        {state.checks.kind === 'running' ? checkingMessage(state.checks.files) : ''}
      </p>

      <div className="uploader__notice" role="status">
        {state.notice && <p>{state.notice}</p>}
      </div>

      <h2 className="uploader__list-title">Files</h2>
      {ranchId && (
        <div className="uploader__actions">
          <button type="button" className="button button--primary" disabled={!canUpload(state, remaining)} onClick={uploader.requestUpload}>
            Upload
          </button>
          <button type="button" className="button" disabled={running || state.files.length === 0} onClick={uploader.clear}>
            Clear List
          </button>
          {running && (
            <button type="button" className="button" disabled={state.batch.kind === 'running' && state.batch.stopping} onClick={uploader.stop}>
              Stop
            </button>
          )}
        </div>
      )}
      <FileList files={state.files} busy={running} onRemove={uploader.remove} onRetry={uploader.retryFile} />

      <p>
        <button type="button" className="button" onClick={onSignOut}>
          Sign Out
        </button>
      </p>
      {uploader.confirm && (
        <ConfirmDialog title="Upload limit" question={overAllowanceQuestion(uploader.confirm.remaining, uploader.confirm.listed)} onAnswer={uploader.answerConfirm} />
      )}
    </section>
  );
}
