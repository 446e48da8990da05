import type { SkippedFile } from './file-filter';
import { progressPercent, skippedNotice, OVER_ALLOWANCE_ADVICE, storageErrorMessage } from './messages';

/** One file's state in the list (UP `FileProgress`): a discriminated union, not flags. */
export type FileStatus =
  /** Listed, its first bytes not yet confirmed as a JPEG's: dropped if they are not. */
  | { kind: 'checking' }
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
  | { type: 'returned'; id: string }
  /** Its first bytes, checked just before its upload, are not a JPEG's: dropped, never uploaded. */
  | { type: 'refused'; id: string };

/** One file's first-bytes verdict. */
export interface SignatureVerdict {
  id: string;
  isJpeg: boolean;
}

export type Batch = { kind: 'idle' } | { kind: 'running'; stopping: boolean };

/** The background check of listed files' first bytes; `files` is how many it was given. */
export type Checks = { kind: 'idle' } | { kind: 'running'; files: number };

export interface QueueState {
  files: ListedFile[];
  /** The files chosen (the denominator of progress); removing an entry lowers it. */
  total: number;
  /** Uploaded since the files were chosen. */
  uploaded: number;
  /** Failed uploads since the screen opened (SPEC.md §8's failure counter). */
  failures: number;
  batch: Batch;
  checks: Checks;
  /**
   * The skipped files the notice names. Byte-check failures join the selection's instant skips
   * while they are still shown, so a selection gets one grouped notice however its checks end.
   */
  skipped: SkippedFile[];
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
  /** A chunk of the background first-bytes check: one state update per chunk, not per file. */
  | { type: 'signatures-checked'; verdicts: readonly SignatureVerdict[] }
  | { type: 'upload-declined' };

export const initialQueueState: QueueState = {
  files: [],
  total: 0,
  uploaded: 0,
  failures: 0,
  batch: { kind: 'idle' },
  checks: { kind: 'idle' },
  skipped: [],
  error: null,
  notice: null,
};

function applyEvents(state: QueueState, events: readonly EngineEvent[]): QueueState {
  // One pass over the list per flush, however many events: 10,000 files stay cheap.
  const status = new Map<string, FileStatus>();
  const gone = new Set<string>();
  const refused = new Set<string>();
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
        const attempt = s && (s.kind === 'uploading' || s.kind === 'retrying') ? s.attempt : 1;
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
      case 'refused':
        refused.add(event.id);
        status.delete(event.id);
        break;
    }
  }
  const files =
    status.size === 0 && gone.size === 0 && refused.size === 0
      ? state.files
      : state.files.flatMap((f) => (gone.has(f.id) || refused.has(f.id) ? [] : [status.has(f.id) ? { ...f, status: status.get(f.id)! } : f]));
  const next = { ...state, files, uploaded, failures, error };
  return refused.size > 0 ? dropNotJpeg(next, state.files.filter((f) => refused.has(f.id))) : settleChecks(next);
}

/** Ends the check once no listed file waits for it (checked, removed, or uploaded after its own check). */
function settleChecks(state: QueueState): QueueState {
  if (state.checks.kind === 'idle' || state.files.some((f) => f.status.kind === 'checking')) return state;
  return { ...state, checks: { kind: 'idle' } };
}

/**
 * Drops files whose first bytes are not a JPEG's (`dropped` are the entries as they were listed,
 * already taken out of `state.files`): they leave the total and join the one grouped notice.
 */
function dropNotJpeg(state: QueueState, dropped: readonly ListedFile[]): QueueState {
  if (dropped.length === 0) return settleChecks(state);
  const skipped = [...state.skipped, ...dropped.map((f): SkippedFile => ({ name: f.name, reason: 'not-jpeg' }))];
  return settleChecks({ ...state, total: Math.max(0, state.total - dropped.length), skipped, notice: skippedNotice(skipped) });
}

function applyVerdicts(state: QueueState, verdicts: readonly SignatureVerdict[]): QueueState {
  const isJpeg = new Map(verdicts.map((v) => [v.id, v.isJpeg]));
  const dropped: ListedFile[] = [];
  let changed = false;
  const files = state.files.flatMap((f) => {
    const verdict = isJpeg.get(f.id);
    // Only a file still checking takes its verdict: one already admitted by its own check before
    // its upload (uploading, failed, back to waiting) got the same answer then.
    if (verdict === undefined || f.status.kind !== 'checking') return [f];
    changed = true;
    if (verdict) return [{ ...f, status: { kind: 'waiting' } as const }];
    dropped.push(f);
    return [];
  });
  return changed ? dropNotJpeg({ ...state, files }, dropped) : settleChecks(state);
}

/** The list, counters and batch of the uploader (SPEC.md §4 Uploader). Pure. */
export function queueReducer(state: QueueState, action: QueueAction): QueueState {
  switch (action.type) {
    case 'files-added': {
      const files = action.files.length > 0 ? [...state.files, ...action.files] : state.files;
      const checking = state.checks.kind === 'running' ? state.checks.files : 0;
      const checks: Checks = checking + action.files.length > 0 ? { kind: 'running', files: checking + action.files.length } : { kind: 'idle' };
      // While an earlier selection is still being checked, its skips are still news: one notice for both.
      const skipped = state.checks.kind === 'running' ? [...state.skipped, ...action.skipped] : action.skipped;
      // Choosing files resets the uploaded counter; the total is what is now listed.
      return { ...state, files, total: files.length, uploaded: 0, checks, skipped, notice: skippedNotice(skipped) };
    }
    case 'file-removed': {
      if (state.batch.kind === 'running') return state;
      const files = state.files.filter((f) => f.id !== action.id);
      if (files.length === state.files.length) return state;
      return settleChecks({ ...state, files, total: Math.max(0, state.total - 1) });
    }
    case 'list-cleared':
      if (state.batch.kind === 'running') return state;
      return { ...state, files: [], total: 0, uploaded: 0, checks: { kind: 'idle' }, skipped: [], notice: null };
    case 'batch-started': {
      const ids = new Set(action.ids);
      return {
        ...state,
        batch: { kind: 'running', stopping: false },
        error: null,
        notice: null,
        // The notice was seen; skips found from now on start a new one.
        skipped: [],
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
    case 'signatures-checked':
      return action.verdicts.length > 0 ? applyVerdicts(state, action.verdicts) : state;
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
  const counts = { checking: 0, waiting: 0, uploading: 0, retrying: 0, failed: 0 };
  for (const f of files) counts[f.status.kind]++;
  return counts;
}
