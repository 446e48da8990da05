import type { SkippedFile } from './file-filter';
import { progressPercent, skippedNotice, OVER_ALLOWANCE_ADVICE, storageErrorMessage } from './messages';

/** One file's state in the list (UP `FileProgress`): a discriminated union, not flags. */
export type FileStatus =
  | { kind: 'waiting' }
  | { kind: 'uploading'; attempt: number; percent: number }
  | { kind: 'retrying'; attempt: number; reason: string }
  | { kind: 'failed'; reason: string };

/** A listed file. `key` is its object name, fixed when listed so every retry reuses it. */
export interface ListedFile {
  id: string;
  key: string;
  name: string;
  size: number;
  lastModified: number;
  file: Blob;
  status: FileStatus;
}

/** What the upload engine reports, applied to the list in batches (one state update per flush). */
export type EngineEvent =
  | { type: 'started'; id: string; attempt: number }
  | { type: 'progress'; id: string; percent: number }
  | { type: 'retrying'; id: string; attempt: number; reason: string }
  | { type: 'succeeded'; id: string }
  | { type: 'failed'; id: string; reason: string }
  /** Stopped before it finished: back to waiting, not a failure. */
  | { type: 'returned'; id: string };

export type Batch = { kind: 'idle' } | { kind: 'running'; stopping: boolean };

export interface QueueState {
  files: ListedFile[];
  /** The files chosen (the denominator of progress); removing an entry lowers it. */
  total: number;
  /** Uploaded since the files were chosen. */
  uploaded: number;
  /** Failed uploads since the screen opened (SPEC.md §8's failure counter). */
  failures: number;
  batch: Batch;
  /** The error area's text (the newest upload failure), or null. */
  error: string | null;
  /** The notice area's text (grouped skipped files, the over-allowance advice), or null. */
  notice: string | null;
}

export type QueueAction =
  | { type: 'files-added'; files: ListedFile[]; skipped: SkippedFile[] }
  | { type: 'file-removed'; id: string }
  | { type: 'list-cleared' }
  | { type: 'batch-started'; ids: readonly string[] }
  | { type: 'stop-requested' }
  | { type: 'batch-ended' }
  | { type: 'engine-events'; events: EngineEvent[] }
  | { type: 'upload-declined' };

export const initialQueueState: QueueState = {
  files: [],
  total: 0,
  uploaded: 0,
  failures: 0,
  batch: { kind: 'idle' },
  error: null,
  notice: null,
};

function applyEvents(state: QueueState, events: readonly EngineEvent[]): QueueState {
  // One pass over the list per flush, however many events: 10,000 files stay cheap.
  const status = new Map<string, FileStatus>();
  const gone = new Set<string>();
  let uploaded = state.uploaded;
  let failures = state.failures;
  let error = state.error;
  for (const event of events) {
    switch (event.type) {
      case 'started':
        status.set(event.id, { kind: 'uploading', attempt: event.attempt, percent: 0 });
        break;
      case 'progress': {
        const s = status.get(event.id);
        const attempt = s && s.kind !== 'waiting' && s.kind !== 'failed' ? s.attempt : 1;
        status.set(event.id, { kind: 'uploading', attempt, percent: Math.max(0, Math.min(100, Math.round(event.percent))) });
        break;
      }
      case 'retrying':
        status.set(event.id, { kind: 'retrying', attempt: event.attempt, reason: event.reason });
        break;
      case 'succeeded':
        uploaded++;
        gone.add(event.id);
        status.delete(event.id);
        break;
      case 'failed':
        failures++;
        error = storageErrorMessage(event.reason);
        status.set(event.id, { kind: 'failed', reason: event.reason });
        break;
      case 'returned':
        status.set(event.id, { kind: 'waiting' });
        break;
    }
  }
  const files =
    status.size === 0 && gone.size === 0
      ? state.files
      : state.files.flatMap((f) => (gone.has(f.id) ? [] : [status.has(f.id) ? { ...f, status: status.get(f.id)! } : f]));
  return { ...state, files, uploaded, failures, error };
}

/** The list, counters and batch of the uploader (SPEC.md §4 Uploader). Pure. */
export function queueReducer(state: QueueState, action: QueueAction): QueueState {
  switch (action.type) {
    case 'files-added': {
      const files = action.files.length > 0 ? [...state.files, ...action.files] : state.files;
      // Choosing files resets the uploaded counter; the total is what is now listed.
      return { ...state, files, total: files.length, uploaded: 0, notice: skippedNotice(action.skipped) };
    }
    case 'file-removed': {
      if (state.batch.kind === 'running') return state;
      const files = state.files.filter((f) => f.id !== action.id);
      if (files.length === state.files.length) return state;
      return { ...state, files, total: Math.max(0, state.total - 1) };
    }
    case 'list-cleared':
      if (state.batch.kind === 'running') return state;
      return { ...state, files: [], total: 0, uploaded: 0, notice: null };
    case 'batch-started': {
      const ids = new Set(action.ids);
      return {
        ...state,
        batch: { kind: 'running', stopping: false },
        error: null,
        notice: null,
        // Failed files in the batch go round again.
        files: state.files.map((f) => (f.status.kind === 'failed' && ids.has(f.id) ? { ...f, status: { kind: 'waiting' } } : f)),
      };
    }
    case 'stop-requested':
      return state.batch.kind === 'running' ? { ...state, batch: { kind: 'running', stopping: true } } : state;
    case 'batch-ended':
      return { ...state, batch: { kind: 'idle' } };
    case 'engine-events':
      return action.events.length > 0 ? applyEvents(state, action.events) : state;
    case 'upload-declined':
      return { ...state, notice: OVER_ALLOWANCE_ADVICE };
  }
}

/** The progress percentage (SPEC.md §4): uploaded over the total chosen. */
export const percentOf = (state: QueueState): number => progressPercent(state.uploaded, state.total);

/**
 * SPEC.md §5: Upload is enabled when there is something to upload, allowance remains and progress
 * is at zero or complete. "Complete" is read as "no batch running": a batch that ended with
 * failures or was stopped is complete, so its leftovers can be uploaded again. Allowance smaller
 * than the list does not disable the button: it leads to the over-allowance question (§5), which
 * needs a click to be asked.
 */
export function canUpload(state: QueueState, remaining: number | null): boolean {
  return state.batch.kind === 'idle' && state.files.length > 0 && remaining !== null && remaining > 0;
}

/** What clicking Upload does: upload all, ask first (list over the allowance), or nothing. */
export type UploadPlan = { kind: 'upload'; limit: number } | { kind: 'confirm'; remaining: number; listed: number } | { kind: 'none' };

export function planUpload(state: QueueState, remaining: number | null): UploadPlan {
  if (!canUpload(state, remaining) || remaining === null) return { kind: 'none' };
  const listed = state.files.length;
  return listed > remaining ? { kind: 'confirm', remaining, listed } : { kind: 'upload', limit: listed };
}

/** Per-status counts for the list's summary. */
export function statusCounts(files: readonly ListedFile[]): Record<FileStatus['kind'], number> {
  const counts = { waiting: 0, uploading: 0, retrying: 0, failed: 0 };
  for (const f of files) counts[f.status.kind]++;
  return counts;
}
