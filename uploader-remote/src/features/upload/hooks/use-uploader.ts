import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { extensionOf, fileIdentity, precheckSelection } from '../model/file-filter';
import { progressAnnouncement, progressQuarter } from '../model/messages';
import { initialQueueState, planUpload, queueReducer, type EngineEvent, type ListedFile, type QueueState } from '../model/upload-queue';
import type { UploadTarget } from '../services/amplify-storage';
import { createSignatureCheck } from '../services/signature-check';
import { runBatch, type RunningBatch } from '../services/upload-engine';
import type { UploaderServices } from '../services/uploader-services';

/** Engine events are applied at most this often: one render per flush, not per file or byte. */
const FLUSH_MS = 200;

export interface UploaderController {
  state: QueueState;
  /** The over-allowance question, while it is asked. */
  confirm: { remaining: number; listed: number } | null;
  /** The latest polite announcement for screen readers. */
  announcement: string;
  /**
   * Lists a selection at once (instant checks only) and checks the listed files' first bytes in
   * the background (`state.checks`), dropping those that are not JPEGs.
   */
  addFiles(files: readonly File[]): void;
  remove(id: string): void;
  clear(): void;
  /** Upload clicked: uploads, or asks the over-allowance question. */
  requestUpload(): void;
  answerConfirm(uploadRemaining: boolean): void;
  retryFile(id: string): void;
  stop(): void;
}

export interface UploaderContext {
  services: UploaderServices;
  /** The remaining allowance, or null while unknown. */
  remaining: number | null;
  /** The batch's level, ranch and camera, read when a batch starts. */
  target: () => UploadTarget;
  concurrency: number;
  /** After each batch (the quota is fetched again). */
  onBatchEnd: () => void;
}

/** The uploader's state and actions: the reducer for the list, the engine for the uploads. */
export function useUploader({ services, remaining, target, concurrency, onBatchEnd }: UploaderContext): UploaderController {
  const [state, dispatch] = useReducer(queueReducer, initialQueueState);
  const [confirm, setConfirm] = useState<UploaderController['confirm']>(null);
  const [announcement, setAnnouncement] = useState('');
  const stateRef = useRef(state);
  stateRef.current = state;
  const batch = useRef<RunningBatch | null>(null);
  const signatures = useMemo(() => createSignatureCheck(services.readHead), [services]);
  // Aborts the background checks (Clear List, unmount); a new one is made for the next selection.
  const checking = useRef(new AbortController());

  useEffect(
    () => () => {
      batch.current?.stop();
      checking.current.abort();
    },
    [],
  );

  const addFiles = useCallback(
    (files: readonly File[]) => {
      if (files.length === 0) return;
      const listed = new Set(stateRef.current.files.map(fileIdentity));
      const { accepted, skipped } = precheckSelection(files, listed);
      const entries: ListedFile[] = accepted.map((file) => {
        const id = services.newId();
        return { id, key: `${id}${extensionOf(file.name)}`, name: file.name, size: file.size, lastModified: file.lastModified, file, status: { kind: 'checking' } };
      });
      // One state update for the whole selection, however many files: the list is usable now.
      dispatch({ type: 'files-added', files: entries, skipped });
      if (entries.length === 0) return;
      if (checking.current.signal.aborted) checking.current = new AbortController();
      void signatures.checkAll(entries, (verdicts) => dispatch({ type: 'signatures-checked', verdicts }), checking.current.signal);
    },
    [services, signatures],
  );

  const startBatch = useCallback(
    (files: readonly ListedFile[], limit: number) => {
      if (batch.current || files.length === 0 || limit <= 0) return;
      const at = target();
      const start = stateRef.current;
      let uploadCount = start.uploaded;
      let failureCount = start.failures;
      let quarter = progressQuarter(start.uploaded, start.total);
      let pending: EngineEvent[] = [];
      let timer: ReturnType<typeof setTimeout> | null = null;
      const keys = new Map(files.map((f) => [f.id, f.key]));
      // Upload may be pressed before the background check has reached every file. Rather than
      // wait for the whole check, each unchecked file is checked just before its own upload (the
      // engine's `admit`, sharing the background read if one is in flight): the batch starts at
      // once and a file whose first bytes are not a JPEG's is dropped ('refused'), never uploaded.
      // Files listed as anything but checking have passed the check already.
      const unchecked = new Set(files.filter((f) => f.status.kind === 'checking').map((f) => f.id));

      const flush = () => {
        timer = null;
        if (pending.length === 0) return;
        const events = pending;
        pending = [];
        dispatch({ type: 'engine-events', events });
        const q = progressQuarter(uploadCount, start.total);
        if (q !== quarter && uploadCount < start.total) {
          quarter = q;
          setAnnouncement(progressAnnouncement({ kind: 'milestone', uploaded: uploadCount, total: start.total }));
        }
      };
      const emit = (event: EngineEvent) => {
        if (event.type === 'succeeded') {
          uploadCount++;
          void services.analytics.track({ name: 'imageUpload', ranchid: at.ranchId, key: keys.get(event.id) ?? '', uploadCount });
        } else if (event.type === 'failed') {
          failureCount++;
          void services.analytics.track({ name: 'uploadFailure', ranchid: at.ranchId, failureCount });
        }
        pending.push(event);
        timer ??= setTimeout(flush, FLUSH_MS);
      };

      dispatch({ type: 'batch-started', ids: files.map((f) => f.id) });
      setAnnouncement(progressAnnouncement({ kind: 'started', files: Math.min(limit, files.length) }));
      const running = runBatch(
        files.map((f) => ({ id: f.id, key: f.key, file: f.file })),
        { concurrency, limit, retry: services.retry },
        {
          upload: (job, context) => services.upload(at, job, context),
          refreshCredentials: services.refreshCredentials,
          sleep: services.sleep,
          random: services.random,
          admit: async (job) => !unchecked.has(job.id) || signatures.isJpeg(job),
        },
        emit,
      );
      batch.current = running;
      void running.done.then((result) => {
        if (timer) clearTimeout(timer);
        flush();
        batch.current = null;
        dispatch({ type: 'batch-ended' });
        setAnnouncement(progressAnnouncement({ kind: 'ended', uploaded: result.succeeded, failed: result.failed, stopped: result.stopped }));
        onBatchEnd();
      });
    },
    [services, signatures, target, concurrency, onBatchEnd],
  );

  const requestUpload = useCallback(() => {
    const plan = planUpload(stateRef.current, remaining);
    if (plan.kind === 'confirm') setConfirm({ remaining: plan.remaining, listed: plan.listed });
    else if (plan.kind === 'upload') startBatch(stateRef.current.files, plan.limit);
  }, [remaining, startBatch]);

  const answerConfirm = useCallback(
    (uploadRemaining: boolean) => {
      const asked = confirm;
      setConfirm(null);
      if (!asked) return;
      if (uploadRemaining) startBatch(stateRef.current.files, asked.remaining);
      else dispatch({ type: 'upload-declined' });
    },
    [confirm, startBatch],
  );

  const retryFile = useCallback(
    (id: string) => {
      const file = stateRef.current.files.find((f) => f.id === id);
      if (file && remaining !== null && remaining > 0) startBatch([file], 1);
    },
    [remaining, startBatch],
  );

  return {
    state,
    confirm,
    announcement,
    addFiles,
    remove: useCallback((id: string) => dispatch({ type: 'file-removed', id }), []),
    clear: useCallback(() => {
      if (batch.current) return;
      checking.current.abort();
      dispatch({ type: 'list-cleared' });
    }, []),
    requestUpload,
    answerConfirm,
    retryFile,
    stop: useCallback(() => {
      if (!batch.current) return;
      dispatch({ type: 'stop-requested' });
      batch.current.stop();
    }, []),
  };
}
