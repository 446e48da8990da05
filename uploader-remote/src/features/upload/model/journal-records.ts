/**
 * The records of the upload journal (services/journal/upload-journal.ts): plain data, so the
 * model and the controller speak of them without depending on IndexedDB.
 */

/** Where a file goes: the storage level and the camera it was sent with (the name as the user chose it). */
export interface JournalTarget {
  level: 'public' | 'private';
  cameraName: string;
}

/** waiting: listed or interrupted; uploaded: S3 answered 200; failed: refused for good (reason given). */
export type JournalStatus = 'waiting' | 'uploaded' | 'failed';

/** One photo of one user and ranch, identified by its content fingerprint. */
export interface JournalEntry {
  owner: string;
  ranchId: string;
  fingerprint: string;
  /** The batch (the list) it belongs to; null once the batch was cleared but the key must be kept. */
  batchId: string | null;
  name: string;
  /** The path inside a chosen folder ("DCIM/100MEDIA/IMG_0001.JPG"); "" for files chosen one by one. */
  path: string;
  size: number;
  lastModified: number;
  /** The object key, fixed the first time the file is listed: every retry and resume reuses it. */
  key: string;
  status: JournalStatus;
  /** Why it failed (status failed). */
  reason?: string;
  /**
   * Set at the first attempt: a file once sent keeps its level and camera, so a resend overwrites
   * the same object instead of making a second one elsewhere.
   */
  target?: JournalTarget;
  /**
   * The form it was admitted (or uploaded) in: a smaller copy or the original (model/photo-forms.ts).
   * Absent: the original (entries from before copies).
   */
  form?: 'copy' | 'original';
  /** ms since the epoch of the last change. */
  updatedAt: number;
  uploadedAt?: number;
}

/** A batch: the list a user is sending, with the choices it is sent with. */
export interface JournalBatch {
  id: string;
  owner: string;
  ranchId: string;
  createdAt: number;
  updatedAt: number;
  /** The camera chosen for the batch ("" for "Indicate camera"). */
  camera: string;
  training: boolean;
  /**
   * A folder the browser lets the site keep (File System Access API), so a later Resume can read
   * the files again without a new pick. Structured-cloneable, so IndexedDB stores it as it is.
   */
  folder?: unknown;
  /** The transform stages' settings for the batch, by stage name (controller/stages/stage.ts StageChoices). Absent: none. */
  stageSettings?: Record<string, unknown>;
}

/** An unfinished batch as the resume offer shows it. */
export interface BatchSummary {
  batch: JournalBatch;
  uploaded: number;
  total: number;
}

/** One signed-in user's entries for one ranch. */
export interface JournalScope {
  owner: string;
  ranchId: string;
}
