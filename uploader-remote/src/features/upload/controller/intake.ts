import type { JournalEntry } from '../services/journal/upload-journal';
import { extensionOf, precheckSelection, type SkippedFile } from '../model/file-filter';
import type { CheckVerdict, ListedFile } from '../model/upload-queue';
import type { FileProbe } from '../services/files/file-probe';
import { walkDirectoryHandle, type DirectoryHandleLike, type FoundFile, type WalkResult } from '../services/files/folder-walk';
import type { UploaderServices } from '../services/uploader-services';
import type { BatchJournal } from './batch-journal';
import { errorText, type ChosenFile, type UploaderStore } from './uploader-state';
import type { OnRecord, PhotoForm } from '../model/photo-forms';
import type { RecordFacts } from './stages/stage';

/** What the ranch has of some photos: the form it has each in (by fingerprint). */
export interface ServerPhotos {
  forms: ReadonlyMap<string, PhotoForm>;
  /** Whether the server answered (else nothing is known of these photos). */
  asked: boolean;
}

const NOT_ASKED: ServerPhotos = { forms: new Map(), asked: false };

/** What the server is asked while a card is checked (the uploads API's photo lookups). */
export interface ServerLookups {
  /** Which of these photos the ranch has, in which form. */
  photos(fingerprints: readonly string[]): Promise<ReadonlyMap<string, PhotoForm>>;
  /** Which of these file sizes some photo of the ranch has. */
  sizes(sizes: readonly number[]): Promise<ReadonlySet<number>>;
}

/** A photo the stages say the ranch has counted already (OnRecord `upgrade`) is listed to go without a slot (ListedFile.upgrade). */
const countedAlready = (record: OnRecord): { upgrade?: true } => (record === 'upgrade' ? { upgrade: true } : {});

/** Files read per background step: one state update and one journal transaction per chunk. */
const CHECK_CHUNK = 256;
/** Files whose sizes are read per message to the worker: the first ones are listed soon. */
const STAT_CHUNK = 1000;

/** A chosen file with what the list needs of it, read once (never `File.size` on this thread). */
interface PickedFile {
  file: File;
  name: string;
  path: string;
  size: number;
  lastModified: number;
}

/**
 * What comes into the list: files picked or dropped, folders walked, each checked in the
 * background (sizes, then fingerprints and EXIF by the prober) against the journal, the photos the
 * ranch already has on the server (sent from any device or browser) and the list itself. Selections are checked one after another, in the order chosen.
 */
export class Intake {
  private readonly probes = new Map<string, Promise<FileProbe>>();
  /** Which listed file is each photo (by fingerprint): a second copy is dropped as a duplicate. */
  private readonly listedFingerprints = new Map<string, string>();
  /** Files whose journal entry the upload path writes (admitted): the background check leaves them be. */
  private readonly claimed = new Set<string>();
  private checking: Promise<void> = Promise.resolve();

  /**
   * `onListed`: a selection is checked (its photos' camera can be suggested). `joinRunning`: files
   * found new while a batch runs, for it to send too.
   */
  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    private readonly journal: BatchJournal,
    private readonly onListed: () => void,
    private readonly joinRunning: (files: readonly ListedFile[]) => void,
    /** What the ranch already has on the server (sent from any device or browser). */
    private readonly server: ServerLookups,
    /** What the ranch has of a photo, by the run's stages and the choices on screen now (stages/pipeline.ts). */
    private readonly record: (facts: RecordFacts) => OnRecord,
  ) {}

  /** The server's answer for a chunk's photos; a failure is logged and leaves the decision to the upload's own reservation. */
  private async askServer(probes: readonly FileProbe[]): Promise<ServerPhotos> {
    const fingerprints = probes.flatMap((p) => (p.kind === 'ok' && p.isJpeg ? [p.fingerprint] : []));
    if (fingerprints.length === 0) return NOT_ASKED;
    return this.server.photos(fingerprints).then(
      (forms): ServerPhotos => ({ forms, asked: true }),
      (error: unknown) => {
        this.services.logError('Could not ask which photos the ranch already has', error);
        return NOT_ASKED;
      },
    );
  }

  /** What the ranch has of one photo, by the journal and the server. */
  private recordOf(fingerprint: string, entry: JournalEntry | undefined, server: ServerPhotos): OnRecord {
    return this.record({ entry, server: server.forms.get(fingerprint) ?? null, asked: server.asked });
  }

  /** Settles when every selection chosen so far is checked. */
  get checked(): Promise<void> {
    return this.checking;
  }

  /** The upload path writes `id`'s journal entry from now on (with its key and target). */
  claim(id: string): void {
    this.claimed.add(id);
  }

  /** The list was cleared: what was read of its files is forgotten. */
  reset(): void {
    this.probes.clear();
    this.listedFingerprints.clear();
    this.claimed.clear();
  }

  /**
   * Lists a selection. The instant checks (empty, not named as a JPEG, too large) skip at once.
   * A file whose size matches nothing in the journal cannot be a photo already uploaded: it is
   * listed at once and read in the background (a second copy of a listed photo is dropped then).
   * The others are held until their fingerprints tell: already uploaded (skipped, counted in the
   * notice), the same photo twice (skipped), interrupted earlier (listed with its old key), or new.
   */
  addFiles(files: readonly ChosenFile[]): void {
    if (files.length === 0 || this.store.disposed) return;
    this.journal.addSource(null);
    this.addSelection(files);
  }

  /**
   * Lists a folder the browser gave a handle for (Add Folder with the File System Access API):
   * walked, subfolders included; the handle is kept with the batch so Resume can read it again.
   */
  addFolder(handle: DirectoryHandleLike): void {
    this.journal.addSource(handle);
    this.addWalk((onProgress) => walkDirectoryHandle(handle, { onProgress }));
  }

  /**
   * Lists what a walk finds (a dropped folder, a picked folder): "Reading… N files" while it
   * runs; entries that could not be read join the skipped files' notice.
   */
  addWalk(walk: (onProgress: (found: number) => void) => Promise<WalkResult>): void {
    if (this.store.disposed) return;
    this.store.set({ reading: { found: 0 } });
    const walking = walk((found) => this.store.set({ reading: { found } })).catch((error: unknown): WalkResult => {
      this.services.logError('Could not read the folder', error);
      return { files: [], unreadable: [{ path: '', reason: errorText(error) }] };
    });
    this.checking = this.checking
      .then(() => walking)
      .then((result) => {
        this.store.set({ reading: null });
        const unreadable = result.unreadable.map((u): SkippedFile => ({
          name: u.path ? u.path.split('/').pop() || u.path : 'The folder',
          reason: 'unreadable',
        }));
        if (result.files.length > 0) this.addSelection(result.files, unreadable);
        else if (unreadable.length > 0) this.store.dispatch({ type: 'files-added', files: [], skipped: unreadable });
      });
  }

  /** `skipped`: what the walk that found `chosen` could not read, for the selection's one notice. */
  private addSelection(chosen: readonly ChosenFile[], skipped: readonly SkippedFile[] = []): void {
    const batchId = this.journal.ensureBatch();
    const files = chosen.map((c): FoundFile => (c instanceof Blob ? { file: c, path: c.webkitRelativePath ?? '' } : c));
    // At once, before any file is touched: every chosen file counts as being checked.
    this.store.dispatch({ type: 'files-added', files: [], skipped: [...skipped], held: files.length });
    this.checking = this.checking
      .then(() => this.listSelection(files, batchId))
      .catch((error: unknown) => {
        this.services.logError('Could not check the chosen files', error);
      });
  }

  private async listSelection(files: readonly FoundFile[], batchId: string): Promise<void> {
    // First the whole selection is listed or held, a thousand at a time: on a card picked again
    // the new photos are the last ones, and the user is waiting to see them. Reading fingerprints
    // starts after, so it does not compete with the listing for the main thread.
    const listedNow: ListedFile[] = [];
    const heldBack: PickedFile[] = [];
    for (let start = 0; start < files.length && !this.store.disposed; start += STAT_CHUNK) {
      const chunk = files.slice(start, start + STAT_CHUNK);
      // Sizes a slice per task (file-prober.ts says why).
      const stats = await this.services.prober.stat(chunk.map((c) => c.file)).catch((error: unknown) => {
        this.services.logError('Could not read the chosen files', error);
        return null;
      });
      if (!stats) {
        const skipped = chunk.map((f): SkippedFile => ({ name: f.file.name, reason: 'unreadable' }));
        this.store.dispatch({ type: 'held-resolved', files: [], skipped, resolved: chunk.length });
        continue;
      }
      const picked = chunk.map(({ file, path }, i): PickedFile => ({ file, name: file.name, path, ...stats[i]! }));
      const { accepted, skipped } = precheckSelection(picked);
      const sizes = accepted.map((f) => f.size);
      // Sizes of photos this browser sent (the journal) or the ranch has (the server): a file of
      // another size cannot be one of them, and is listed at once.
      const [inJournal, onServer] = await Promise.all([
        // Without the journal every file is held and fingerprinted (batch-journal.ts sizesKnown).
        this.journal.sizesKnown(sizes),
        sizes.length === 0
          ? Promise.resolve(new Set<number>())
          : this.server.sizes(sizes).catch((error: unknown) => {
              // Unknown: every file may be one the ranch has, so each is held until its fingerprint is asked.
              this.services.logError('Could not ask which photos the ranch already has', error);
              return new Set(sizes);
            }),
      ]);
      const known = new Set([...inJournal, ...onServer]);
      const now: ListedFile[] = [];
      for (const file of accepted) {
        if (known.has(file.size)) heldBack.push(file);
        else now.push(this.listed(file, { kind: 'checking' }));
      }
      listedNow.push(...now);
      // The files that cannot be known already are listed now; the held wait for their fingerprints.
      this.store.dispatch({ type: 'held-resolved', files: now, skipped, resolved: now.length + skipped.length });
    }
    await Promise.all([this.checkListed(listedNow, batchId), this.resolveHeld(heldBack, batchId)]);
    this.onListed();
  }

  private listed(file: PickedFile, status: ListedFile['status'], from?: { fingerprint: string; entry?: JournalEntry }): ListedFile {
    const id = this.services.newId();
    return {
      id,
      key: from?.entry?.key ?? `${this.services.newId()}${extensionOf(file.name)}`,
      name: file.name,
      path: file.path,
      size: file.size,
      lastModified: file.lastModified,
      file: file.file,
      status,
      ...(from ? { fingerprint: from.fingerprint } : {}),
      ...(from?.entry?.target ? { target: from.entry.target } : {}),
    };
  }

  /** The file's probe (first bytes, fingerprint, EXIF), read once per listed file and shared by the check and the upload. */
  probe(id: string, file: Blob): Promise<FileProbe> {
    let probe = this.probes.get(id);
    if (!probe) {
      probe = this.services.prober.probe(file).catch((error: unknown): FileProbe => ({ kind: 'unreadable', reason: errorText(error) }));
      this.probes.set(id, probe);
    }
    return probe;
  }

  /** Reads listed files' first bytes and fingerprints in the background, a chunk at a time. */
  private async checkListed(files: readonly ListedFile[], batchId: string): Promise<void> {
    for (let start = 0; start < files.length && !this.store.disposed; start += CHECK_CHUNK) {
      const chunk = files.slice(start, start + CHECK_CHUNK);
      const probes = await Promise.all(chunk.map((f) => this.probe(f.id, f.file)));
      const onServer = await this.askServer(probes);
      const verdicts: CheckVerdict[] = [];
      const entries: JournalEntry[] = [];
      const stillListed = new Set(this.store.getState().queue.files.map((f) => f.id));
      chunk.forEach((file, i) => {
        const probe = probes[i]!;
        if (probe.kind === 'unreadable') verdicts.push({ id: file.id, ok: false, reason: 'unreadable' });
        else if (!probe.isJpeg) verdicts.push({ id: file.id, ok: false, reason: 'not-jpeg' });
        else if (this.recordOf(probe.fingerprint, undefined, onServer) === 'had') verdicts.push({ id: file.id, ok: false, reason: 'already-uploaded' });
        else if (this.isListedAlready(probe.fingerprint, file.id, stillListed)) verdicts.push({ id: file.id, ok: false, reason: 'duplicate' });
        else {
          const record = this.recordOf(probe.fingerprint, undefined, onServer);
          verdicts.push({ id: file.id, ok: true, fingerprint: probe.fingerprint, exif: probe.exif, ...countedAlready(record) });
          this.listedFingerprints.set(probe.fingerprint, file.id);
          // Still listed (not removed or cleared meanwhile) and not already taken by an upload,
          // whose own record (with its target) must not be replaced: recorded as waiting.
          if (stillListed.has(file.id) && !this.claimed.has(file.id)) entries.push(this.journal.entryFor(file, probe.fingerprint, batchId));
        }
      });
      this.store.dispatch({ type: 'files-checked', verdicts });
      await this.journal.write(entries);
    }
  }

  /** Whether another file still listed is this photo (the first one read keeps its place). */
  private isListedAlready(fingerprint: string, id: string, listed: ReadonlySet<string>): boolean {
    const other = this.listedFingerprints.get(fingerprint);
    return other !== undefined && other !== id && listed.has(other);
  }

  /** Decides the held files by their fingerprints, a chunk at a time. */
  private async resolveHeld(files: readonly PickedFile[], batchId: string): Promise<void> {
    const seen = new Set<string>();
    for (let start = 0; start < files.length && !this.store.disposed; start += CHECK_CHUNK) {
      const chunk = files.slice(start, start + CHECK_CHUNK);
      const ids = chunk.map(() => this.services.newId());
      const probes = await Promise.all(chunk.map((file, i) => this.probe(ids[i]!, file.file)));
      const fingerprints = probes.flatMap((p) => (p.kind === 'ok' ? [p.fingerprint] : []));
      const [journaled, onServer] = await Promise.all([this.journal.entries(fingerprints), this.askServer(probes)]);
      // Fingerprints of listed files of the same sizes (read first, if not read yet).
      const chunkSizes = new Set(chunk.map((f) => f.size));
      const sameSize = this.store.getState().queue.files.filter((f) => chunkSizes.has(f.size));
      const listedProbes = await Promise.all(sameSize.map((f) => this.probe(f.id, f.file)));
      for (const p of listedProbes) if (p.kind === 'ok') seen.add(p.fingerprint);
      const stillListed = new Set(this.store.getState().queue.files.map((f) => f.id));

      const add: ListedFile[] = [];
      const skipped: SkippedFile[] = [];
      const entries: JournalEntry[] = [];
      chunk.forEach((file, i) => {
        const probe = probes[i]!;
        if (probe.kind === 'unreadable') return void skipped.push({ name: file.name, reason: 'unreadable' });
        if (!probe.isJpeg) return void skipped.push({ name: file.name, reason: 'not-jpeg' });
        const entry = journaled.get(probe.fingerprint);
        const record = this.recordOf(probe.fingerprint, entry, onServer);
        if (record === 'had') return void skipped.push({ name: file.name, reason: 'already-uploaded' });
        if (seen.has(probe.fingerprint) || this.isListedAlready(probe.fingerprint, ids[i]!, stillListed)) {
          return void skipped.push({ name: file.name, reason: 'duplicate' });
        }
        seen.add(probe.fingerprint);
        this.listedFingerprints.set(probe.fingerprint, ids[i]!);
        const listed = {
          ...this.listed(file, { kind: 'waiting' }, { fingerprint: probe.fingerprint, ...(entry ? { entry } : {}) }),
          id: ids[i]!,
          exif: probe.exif,
          ...countedAlready(record),
        };
        add.push(listed);
        entries.push(this.journal.entryFor(listed, probe.fingerprint, batchId));
      });
      await this.journal.write(entries);
      // Skipped files are gone from this page: so are their probes (9,000 of a card picked again).
      const kept = new Set(add.map((f) => f.id));
      for (const id of ids) if (!kept.has(id)) this.probes.delete(id);
      this.store.dispatch({ type: 'held-resolved', files: add, skipped, resolved: chunk.length });
      // Files found while a batch runs join it.
      if (add.length > 0) this.joinRunning(add);
    }
  }
}
