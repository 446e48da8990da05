import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { extensionOf, fileIdentity, filterSelection } from '../model/file-filter';
import { progressAnnouncement, progressQuarter } from '../model/messages';
import { initialQueueState, planUpload, queueReducer, type EngineEvent, type ListedFile, type QueueState } from '../model/upload-queue';
import type { UploadTarget } from '../services/amplify-storage';
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
  /** True while a selection is being checked. */
  adding: boolean;
  addFiles(files: readonly File[]): Promise<void>;
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
  const [adding, setAdding] = useState(false);
  const stateRef = useRef(state);
  stateRef.current = state;
  const batch = useRef<RunningBatch | null>(null);

  useEffect(() => () => batch.current?.stop(), []);

  const addFiles = useCallback(
    async (files: readonly File[]) => {
      if (files.length === 0) return;
      setAdding(true);
      try {
        const heads = await services.readHeads(files);
        const listed = new Set(stateRef.current.files.map(fileIdentity));
        const { accepted, skipped } = filterSelection(files, heads, listed);
        const entries: ListedFile[] = accepted.map((file) => {
          const id = services.newId();
          return { id, key: `${id}${extensionOf(file.name)}`, name: file.name, size: file.size, lastModified: file.lastModified, file, status: { kind: 'waiting' } };
        });
        // One state update for the whole selection, however many files.
        dispatch({ type: 'files-added', files: entries, skipped });
      } finally {
        setAdding(false);
      }
    },
    [services],
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
    [services, target, concurrency, onBatchEnd],
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
    adding,
    addFiles,
    remove: useCallback((id: string) => dispatch({ type: 'file-removed', id }), []),
    clear: useCallback(() => dispatch({ type: 'list-cleared' }), []),
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
