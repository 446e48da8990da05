import type { JournalBatch, JournalEntry, JournalScope } from '../services/journal/upload-journal';
import type { ListedFile } from '../model/upload-queue';
import type { DirectoryHandleLike } from '../services/files/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import type { UploaderStore } from './uploader-state';

/** A folder handle as kept in the journal, with the permission calls of the File System Access API. */
export type KeptFolder = DirectoryHandleLike & {
  queryPermission?(descriptor: { mode: 'read' }): Promise<string>;
  requestPermission?(descriptor: { mode: 'read' }): Promise<string>;
};

/** A kept folder handle from the journal (structured-cloned), if it is one. */
export function folderHandle(value: unknown): KeptFolder | null {
  if (typeof value !== 'object' || value === null) return null;
  const handle = value as Partial<DirectoryHandleLike>;
  return handle.kind === 'directory' && typeof handle.name === 'string' ? (value as KeptFolder) : null;
}

/**
 * The list's batch in the upload journal: which batch it is (created with the first listed file,
 * or the unfinished one adopted from the resume offer), its record (camera, training, kept folder),
 * the offer itself, and the entries' reads and writes. It is the controller's one way to the
 * journal (services/journal/upload-journal.ts): a lint rule keeps other modules off it. A journal
 * that cannot be read or written is logged and never stops the list or the upload
 * (docs/style.md#errors-and-messages): only the record across reloads is lost.
 */
export class BatchJournal {
  /** The unfinished batch of the resume offer. */
  private offered: JournalBatch | null = null;
  /** The batch (the list) in the journal; created with the first listed file. */
  private batchId: string | null = null;
  private batchCreatedAt = 0;
  /**
   * Where the batch's selections came from: a folder handle (FileSystemDirectoryHandle) or null
   * for files picked or dropped. When all came from one folder, its handle is kept in the journal
   * so Resume can read it again.
   */
  private sources: (DirectoryHandleLike | null)[] = [];

  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    readonly scope: JournalScope,
  ) {}

  /** The list's batch, if it has one yet. */
  get currentId(): string | null {
    return this.batchId;
  }

  /** The unfinished batch offered for resuming, while it is offered. */
  get offer(): JournalBatch | null {
    return this.offered;
  }

  /** A selection was added: from `handle`'s folder, or null for files picked or dropped. */
  addSource(handle: DirectoryHandleLike | null): void {
    this.sources.push(handle);
  }

  /** The list no longer has a batch (cleared, or all of it went up); returns the one it had. */
  forget(): string | null {
    const batchId = this.batchId;
    this.batchId = null;
    this.sources = [];
    return batchId;
  }

  async loadOffer(): Promise<void> {
    try {
      const now = this.services.now().getTime();
      await this.services.journal.prune(now);
      // A shared computer: what other members left here a month ago goes (docs/product.md#shared-computers).
      await this.services.journal.pruneOthers(this.scope.owner, now);
      const [newest] = await this.services.journal.openBatches(this.scope);
      if (!newest || this.batchId || this.store.getState().queue.files.length > 0) return;
      const folder = folderHandle(newest.batch.folder);
      this.store.set({
        offer: { uploaded: newest.uploaded, total: newest.total, lastActivity: new Date(newest.batch.updatedAt), folder: folder?.name ?? null },
      });
      this.offered = newest.batch;
    } catch (error) {
      this.services.logError('Could not read the upload journal', error);
    }
  }

  /** The offered batch becomes the list's batch, unless the list has one already. */
  adoptOffer(): void {
    const batch = this.offered;
    if (!batch || this.batchId) return;
    this.batchId = batch.id;
    this.batchCreatedAt = batch.createdAt;
    this.offered = null;
    // The stages' settings come back with it (a corrected clock stays corrected across a reload).
    this.store.set({ offer: null, stageSettings: batch.stageSettings ?? {} });
  }

  /** Discard: forgets the unfinished batch (what went up stays recorded) and offers the next, if any. */
  async discardOffer(): Promise<void> {
    const batch = this.offered;
    if (!batch) return;
    this.offered = null;
    this.store.set({ offer: null });
    try {
      await this.services.journal.endBatch(batch.id);
    } catch (error) {
      this.services.logError('Could not discard the batch', error);
    }
    await this.loadOffer();
  }

  async saveBatch(): Promise<void> {
    if (!this.batchId) return;
    const now = this.services.now().getTime();
    const { choices, stageSettings } = this.store.getState();
    const batch: JournalBatch = {
      id: this.batchId,
      ...this.scope,
      createdAt: this.batchCreatedAt || now,
      updatedAt: now,
      camera: choices.camera,
      training: choices.training,
      ...(Object.keys(stageSettings).length > 0 ? { stageSettings: { ...stageSettings } } : {}),
      ...(this.keptFolder() ? { folder: this.keptFolder() } : {}),
    };
    try {
      await this.services.journal.putBatch(batch);
    } catch (error) {
      this.services.logError('Could not write the upload journal', error);
    }
  }

  private keptFolder(): DirectoryHandleLike | null {
    const [first] = this.sources;
    return first && this.sources.every((s) => s === first) ? first : null;
  }

  /** The list's batch: the offered one adopted, or a new one, recorded at once. */
  ensureBatch(): string {
    if (!this.batchId) {
      this.adoptOffer();
      if (!this.batchId) {
        this.batchId = this.services.newId();
        this.batchCreatedAt = this.services.now().getTime();
      }
      void this.saveBatch();
    }
    return this.batchId;
  }

  entryFor(file: ListedFile, fingerprint: string, batchId: string): JournalEntry {
    return {
      ...this.scope,
      fingerprint,
      batchId,
      name: file.name,
      path: file.path,
      size: file.size,
      lastModified: file.lastModified,
      key: file.key,
      status: 'waiting',
      ...(file.target ? { target: file.target } : {}),
      updatedAt: this.services.now().getTime(),
    };
  }

  /** Writes entries; a failure is logged only. */
  write(entries: JournalEntry[]): Promise<void> {
    return this.services.journal.putEntries(entries).catch((error: unknown) => this.services.logError('Could not write the upload journal', error));
  }

  /** Records a photo as uploaded at `at` (it stays so); a failure is logged only. */
  recordUploaded(entry: JournalEntry, at: number): Promise<void> {
    return this.write([{ ...entry, status: 'uploaded', uploadedAt: at, updatedAt: at }]);
  }

  /** Records a photo refused for good, with the reason; a failure is logged only. */
  recordFailed(entry: JournalEntry, reason: string, at: number): Promise<void> {
    return this.write([{ ...entry, status: 'failed', reason, updatedAt: at }]);
  }

  /**
   * Which of `sizes` some photo of this user and ranch has. A journal that cannot be read knows
   * every size: each file is then held and fingerprinted, so nothing is sent twice within the page.
   */
  async sizesKnown(sizes: readonly number[]): Promise<Set<number>> {
    try {
      return await this.services.journal.sizesKnown(this.scope, sizes);
    } catch (error) {
      this.services.logError('Could not read the upload journal', error);
      return new Set(sizes);
    }
  }

  /** This user's and ranch's entries with these fingerprints; none when the journal cannot be read. */
  async entries(fingerprints: readonly string[]): Promise<Map<string, JournalEntry>> {
    try {
      return await this.services.journal.entries(this.scope, fingerprints);
    } catch (error) {
      this.services.logError('Could not read the upload journal', error);
      return new Map();
    }
  }

  /** The entry of one photo, if the journal has it (and can be read). */
  async entry(fingerprint: string): Promise<JournalEntry | undefined> {
    return (await this.entries([fingerprint])).get(fingerprint);
  }

  /** Ends a batch in the journal (what went up stays recorded); a failure is logged only. */
  async end(batchId: string): Promise<void> {
    try {
      await this.services.journal.endBatch(batchId);
    } catch (error) {
      this.services.logError('Could not write the upload journal', error);
    }
  }

  /** Takes removed files out of the batch: the never-sent are forgotten, the sent keep their keys. */
  async releaseEntries(files: readonly ListedFile[]): Promise<void> {
    const fingerprints = files.flatMap((f) => (f.fingerprint ? [f.fingerprint] : []));
    try {
      const entries = await this.services.journal.entries(this.scope, fingerprints);
      await this.services.journal.putEntries(
        [...entries.values()].filter((e) => e.status !== 'uploaded').map((e) => ({ ...e, batchId: null, updatedAt: this.services.now().getTime() })),
      );
    } catch (error) {
      this.services.logError('Could not write the upload journal', error);
    }
  }
}
