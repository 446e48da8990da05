import type { JournalTarget } from './journal-records';
import type { SkippedFile } from './file-filter';
import type { PhotoExif } from './photo-exif';
import {
  notSentAtLimitNotice,
  notSentRefusedNotice,
  notSentUnavailableNotice,
  progressPercent,
  skippedNotice,
  upgradeNotice,
  OVER_ALLOWANCE_ADVICE,
  storageErrorMessage,
} from './messages';

/** One file's state in the list (docs/style.md#where-logic-lives): a discriminated union, not flags. */
export type FileStatus =
  /** Listed, its first bytes and fingerprint not yet read: dropped if it is not a JPEG. */
  | { kind: 'checking' }
  | { kind: 'waiting' }
  | { kind: 'uploading'; percent: number }
  | { kind: 'retrying'; reason: string }
  | { kind: 'failed'; reason: string }
  /** Not sent: the server granted it no upload slot (docs/uploader.md#server-reservations); it stays for another batch. */
  | { kind: 'not-sent'; reason: NotSentReason };

/**
 * Why the server gave a photo no slot: the ranch's monthly limit was reached (by this batch or
 * another member's), the uploads API could not be reached to reserve one, or its firewall
 * refused this network address.
 */
export type NotSentReason = 'limit' | 'unavailable' | 'refused';

/** A listed file. `key` is its object name, fixed when listed (or by the journal) so every retry reuses it. */
export interface ListedFile {
  id: string;
  key: string;
  name: string;
  /** The path inside a chosen folder; "" for files chosen one by one. */
  path: string;
  size: number;
  lastModified: number;
  file: Blob;
  status: FileStatus;
  /** The content fingerprint, once read. */
  fingerprint?: string;
  /** What its EXIF says (capture time, camera), once read; null when it has none. */
  exif?: PhotoExif | null;
  /** The level and camera it was first sent with (from the journal): a resend keeps them. */
  target?: JournalTarget;
  /**
   * The ranch has this photo only as a smaller copy, and originals are sent now: its original
   * goes without an upload slot and is not counted again (model/photo-forms.ts).
   */
  upgrade?: true;
}

/** Why a listed file is dropped without being sent. */
export type DropReason = 'not-jpeg' | 'unreadable' | 'already-uploaded' | 'duplicate';

/** What the upload engine reports, applied to the list in batches (one state update per flush). */
export type EngineEvent =
  | { type: 'started'; id: string; attempt: number }
  | { type: 'progress'; id: string; percent: number }
  | { type: 'retrying'; id: string; attempt: number; reason: string }
  | { type: 'succeeded'; id: string }
  | { type: 'failed'; id: string; reason: string }
  /** Stopped or paused before it finished: back to waiting, not a failure. */
  | { type: 'returned'; id: string }
  /** Its checks just before its upload said no (not a JPEG, already uploaded, …): dropped, never sent. */
  | { type: 'dropped'; id: string; reason: DropReason }
  /** The server granted it no slot: kept in the list, not sent. */
  | { type: 'not-sent'; id: string; reason: NotSentReason };

/** What reading a listed file's first bytes and fingerprint decided. */
export type CheckVerdict =
  | { id: string; ok: true; fingerprint: string; exif?: PhotoExif | null; key?: string; target?: JournalTarget; upgrade?: true }
  | { id: string; ok: false; reason: DropReason };

export type Batch = { kind: 'idle' } | { kind: 'running'; stopping: boolean };

/**
 * The background checks: `files` is how many files they were given (the status names it once,
 * not as a running count); `held` how many chosen files are still unlisted because they may be
 * photos already uploaded or already in the list (their size matches one): they are listed or
 * skipped once their fingerprints are known.
 */
export type Checks = { kind: 'idle' } | { kind: 'running'; files: number; held: number };

export interface QueueState {
  files: ListedFile[];
  /** The files chosen (the denominator of progress); removing an entry lowers it. */
  total: number;
  /** Uploaded since the files were chosen. */
  uploaded: number;
  /** Failed uploads since the screen opened (the failure counter of docs/uploader.md#uploader-messages). */
  failures: number;
  batch: Batch;
  checks: Checks;
  /**
   * The skipped files the notice names. Skips found by the background checks join the
   * selection's instant skips while they are still shown, so a selection gets one grouped notice.
   */
  skipped: SkippedFile[];
  /** The error area's text (the newest upload failure), or null. */
  error: string | null;
  /** The notice area's text (grouped skipped files, the over-allowance advice), or null. */
  notice: string | null;
}

export type QueueAction =
  /** A new selection: listed files (checking) and instant skips; `held` files wait for their fingerprints. */
  | { type: 'files-added'; files: ListedFile[]; skipped: SkippedFile[]; held?: number }
  /** Held files resolved: those to send join the list (checked already), the rest are skipped. */
  | { type: 'held-resolved'; files: ListedFile[]; skipped: SkippedFile[]; resolved: number }
  | { type: 'file-removed'; id: string }
  | { type: 'list-cleared' }
  | { type: 'batch-started'; ids: readonly string[] }
  | { type: 'stop-requested' }
  | { type: 'batch-ended' }
  | { type: 'engine-events'; events: EngineEvent[] }
  /** A chunk of the background check: one state update per chunk, not per file. */
  | { type: 'files-checked'; verdicts: readonly CheckVerdict[] }
  | { type: 'upload-declined' }
  /** A notice of the controller's own (why Retry did nothing, …). */
  | { type: 'notice'; text: string };

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

const running = (state: QueueState) => state.batch.kind === 'running';

function applyEvents(state: QueueState, events: readonly EngineEvent[]): QueueState {
  // One pass over the list per flush, however many events: 10,000 files stay cheap.
  const current = new Map<string, FileStatus>();
  const statusOf = (id: string) => current.get(id) ?? state.files.find((f) => f.id === id)?.status;
  const gone = new Set<string>();
  const dropped: { id: string; reason: DropReason }[] = [];
  let uploaded = state.uploaded;
  let failures = state.failures;
  let error = state.error;
  let notSent = false;
  for (const event of events) {
    switch (event.type) {
      case 'started':
        current.set(event.id, { kind: 'uploading', percent: 0 });
        break;
      case 'progress': {
        // Progress moves an upload in flight only: a late event never revives a failed or
        // returned file.
        const s = statusOf(event.id);
        if (s?.kind !== 'uploading') break;
        current.set(event.id, { ...s, percent: Math.max(0, Math.min(100, Math.round(event.percent))) });
        break;
      }
      case 'retrying':
        current.set(event.id, { kind: 'retrying', reason: event.reason });
        break;
      case 'succeeded':
        uploaded++;
        gone.add(event.id);
        current.delete(event.id);
        break;
      case 'failed':
        failures++;
        error = storageErrorMessage(event.reason);
        current.set(event.id, { kind: 'failed', reason: event.reason });
        break;
      case 'returned':
        current.set(event.id, { kind: 'waiting' });
        break;
      case 'dropped':
        dropped.push({ id: event.id, reason: event.reason });
        current.delete(event.id);
        break;
      case 'not-sent':
        current.set(event.id, { kind: 'not-sent', reason: event.reason });
        notSent = true;
        break;
    }
  }
  const dropIds = new Set(dropped.map((d) => d.id));
  const files =
    current.size === 0 && gone.size === 0 && dropIds.size === 0
      ? state.files
      : state.files.flatMap((f) => (gone.has(f.id) || dropIds.has(f.id) ? [] : [current.has(f.id) ? { ...f, status: current.get(f.id)! } : f]));
  const counted = { ...state, files, uploaded, failures, error };
  const next = notSent ? { ...counted, notice: noticeOf(counted.skipped, files) } : counted;
  const byId = new Map(state.files.map((f) => [f.id, f]));
  return dropFiles(
    next,
    dropped.flatMap((d) => (byId.has(d.id) ? [{ file: byId.get(d.id)!, reason: d.reason }] : [])),
  );
}

/** Ends the check once no listed file waits for it and nothing is held. */
function settleChecks(state: QueueState): QueueState {
  if (state.checks.kind === 'idle' || state.checks.held > 0 || state.files.some((f) => f.status.kind === 'checking')) return state;
  return { ...state, checks: { kind: 'idle' } };
}

/**
 * Drops files the checks refused (`dropped` are the entries as they were listed, already taken
 * out of `state.files`): they leave the total and join the one grouped notice.
 */
function dropFiles(state: QueueState, dropped: readonly { file: ListedFile; reason: DropReason }[]): QueueState {
  if (dropped.length === 0) return settleChecks(state);
  const skipped = [...state.skipped, ...dropped.map(({ file, reason }): SkippedFile => ({ name: file.name, reason }))];
  return settleChecks({ ...state, total: Math.max(0, state.total - dropped.length), skipped, notice: noticeOf(skipped, state.files) });
}

/** The notice: the grouped skipped files, then why photos were not sent (each only when there are some). */
export function noticeOf(skipped: readonly SkippedFile[], files: readonly ListedFile[]): string | null {
  const notSent: Record<NotSentReason, number> = { limit: 0, unavailable: 0, refused: 0 };
  let upgrades = 0;
  for (const f of files) {
    if (f.upgrade) upgrades++;
    if (f.status.kind === 'not-sent') notSent[f.status.reason]++;
  }
  const { limit, unavailable, refused } = notSent;
  const parts = [
    skippedNotice(skipped),
    upgrades > 0 ? upgradeNotice(upgrades) : null,
    limit > 0 ? notSentAtLimitNotice(limit) : null,
    unavailable > 0 ? notSentUnavailableNotice(unavailable) : null,
    refused > 0 ? notSentRefusedNotice(refused) : null,
  ];
  const text = parts.filter((p): p is string => p !== null).join(' ');
  return text === '' ? null : text;
}

function applyVerdicts(state: QueueState, verdicts: readonly CheckVerdict[]): QueueState {
  const byId = new Map(verdicts.map((v) => [v.id, v]));
  const dropped: { file: ListedFile; reason: DropReason }[] = [];
  let changed = false;
  const files = state.files.flatMap((f): ListedFile[] => {
    const verdict = byId.get(f.id);
    if (!verdict) return [f];
    if (!verdict.ok) {
      // A file already sent cannot be "dropped" by a late check: its own pre-upload check decided.
      if (f.status.kind !== 'checking' && f.status.kind !== 'waiting') return [f];
      changed = true;
      dropped.push({ file: f, reason: verdict.reason });
      return [];
    }
    changed = true;
    const status: FileStatus = f.status.kind === 'checking' ? { kind: 'waiting' } : f.status;
    return [
      {
        ...f,
        status,
        fingerprint: verdict.fingerprint,
        ...(verdict.exif !== undefined ? { exif: verdict.exif } : {}),
        ...(verdict.key ? { key: verdict.key } : {}),
        ...(verdict.target ? { target: verdict.target } : {}),
        ...(verdict.upgrade ? { upgrade: true as const } : {}),
      },
    ];
  });
  if (!changed) return settleChecks(state);
  // Originals of photos sent before as copies are news for the notice, even when nothing was dropped.
  const notice = verdicts.some((v) => v.ok && v.upgrade) ? noticeOf(state.skipped, files) : state.notice;
  return dropFiles({ ...state, files, notice }, dropped);
}

/** The list, counters and batch of the uploader (docs/uploader.md#uploader-list-and-batch). Pure. */
export function queueReducer(state: QueueState, action: QueueAction): QueueState {
  switch (action.type) {
    case 'files-added': {
      const files = action.files.length > 0 ? [...state.files, ...action.files] : state.files;
      const held = action.held ?? 0;
      const before = state.checks.kind === 'running' ? state.checks : { files: 0, held: 0 };
      const checks: Checks =
        before.files + before.held + action.files.length + held > 0
          ? { kind: 'running', files: before.files + action.files.length + held, held: before.held + held }
          : { kind: 'idle' };
      // While an earlier selection is still being checked, its skips are still news: one notice for both.
      const skipped = state.checks.kind === 'running' ? [...state.skipped, ...action.skipped] : action.skipped;
      // Choosing files resets the uploaded counter; the total is what is now listed.
      return { ...state, files, total: files.length, uploaded: running(state) ? state.uploaded : 0, checks, skipped, notice: skippedNotice(skipped) };
    }
    case 'held-resolved': {
      const files = [...state.files, ...action.files];
      const held = state.checks.kind === 'running' ? Math.max(0, state.checks.held - action.resolved) : 0;
      const skipped = [...state.skipped, ...action.skipped];
      const checks: Checks = state.checks.kind === 'running' ? { ...state.checks, held } : state.checks;
      const notice = action.files.some((f) => f.upgrade) ? noticeOf(skipped, files) : skippedNotice(skipped);
      return settleChecks({ ...state, files, total: state.total + action.files.length, checks, skipped, notice });
    }
    case 'file-removed': {
      if (running(state)) return state;
      const files = state.files.filter((f) => f.id !== action.id);
      if (files.length === state.files.length) return state;
      return settleChecks({ ...state, files, total: Math.max(0, state.total - 1) });
    }
    case 'list-cleared':
      if (running(state)) return state;
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
        // Failed files in the batch, and those not sent last time, go round again.
        files: state.files.map((f) =>
          (f.status.kind === 'failed' || f.status.kind === 'not-sent') && ids.has(f.id) ? { ...f, status: { kind: 'waiting' } } : f,
        ),
      };
    }
    case 'stop-requested':
      return running(state) ? { ...state, batch: { kind: 'running', stopping: true } } : state;
    case 'batch-ended':
      return { ...state, batch: { kind: 'idle' } };
    case 'engine-events':
      return action.events.length > 0 ? applyEvents(state, action.events) : state;
    case 'files-checked':
      return action.verdicts.length > 0 ? applyVerdicts(state, action.verdicts) : state;
    case 'upload-declined':
      return { ...state, notice: OVER_ALLOWANCE_ADVICE };
    case 'notice':
      return { ...state, notice: action.text };
  }
}

/** The progress percentage (docs/uploader.md#uploader-list-and-batch): uploaded over the total chosen. */
export const percentOf = (state: QueueState): number => progressPercent(state.uploaded, state.total);

/**
 * docs/uploader.md#uploader-rules: Upload is enabled when there is something to upload, allowance remains and progress
 * is at zero or complete. "Complete" is read as "no batch running": a batch that ended with
 * failures or was stopped is complete, so its leftovers can be uploaded again. Allowance smaller
 * than the list does not disable the button: it leads to the over-allowance question (same section), which
 * needs a click to be asked. An unknown allowance (`null`) disables it: it never fails open.
 */
export function canUpload(state: QueueState, remaining: number | null): boolean {
  // Originals of photos the ranch has as copies use no allowance: they may go when none is left.
  return state.batch.kind === 'idle' && state.files.length > 0 && remaining !== null && (remaining > 0 || state.files.some((f) => f.upgrade));
}

/**
 * What clicking Upload does: upload all (bounded by the allowance as it goes), ask first (the list
 * is over the allowance), or nothing.
 */
export type UploadPlan = { kind: 'upload' } | { kind: 'confirm'; remaining: number; listed: number } | { kind: 'none' };

/** The listed photos that will count against the month: all but the originals of photos the ranch has as copies. */
export function countedOf(files: readonly ListedFile[]): number {
  let n = 0;
  for (const f of files) if (!f.upgrade) n++;
  return n;
}

export function planUpload(state: QueueState, remaining: number | null): UploadPlan {
  if (!canUpload(state, remaining) || remaining === null) return { kind: 'none' };
  const listed = countedOf(state.files);
  return listed > remaining ? { kind: 'confirm', remaining, listed } : { kind: 'upload' };
}
