import type { PhotoExif } from '../../../model/photo-exif';
import type { CopyResult } from '../../../model/smaller-copy';
import type { ListedFile } from '../../../model/upload-queue';
import type { CopyMaker } from '../../../services/files/copy-maker';

/**
 * Copies made ahead of the uploads this many photos deep. Each waits in memory as a JPEG of about
 * a quarter of a megabyte; enough that the next uploads never wait for their copy, while the workers
 * (services/files/copy-maker.ts) keep making the ones after (docs/uploader.md#smaller-copies).
 */
export const COPIES_AHEAD = 6;

export interface CopyAheadDeps {
  maker: Pick<CopyMaker, 'make'>;
  /** The listed photos still to send, in list order: the next copies are made of them. */
  upcoming: () => Iterable<ListedFile>;
  /** The EXIF a copy made ahead carries (the stages' before this one: stage.ts StageBatch.exifOf); default: the listed photo's. */
  exifOf?: (file: ListedFile) => PhotoExif | null;
  /** How deep to make copies ahead (COPIES_AHEAD). */
  depth?: number;
}

/**
 * The running batch's copies ("Send smaller copies"): `take` gives a photo's copy, made ahead
 * while earlier photos were sending when it could be, and starts the next ones, so making copies
 * runs ahead of the uploads rather than between them. Copies of photos that turn out to be
 * skipped are wasted work, bounded by the depth. `stop` drops the ones made ahead (the batch ended).
 */
export class CopyAhead {
  private readonly ahead = new Map<string, Promise<CopyResult>>();
  /** Photos whose copy was taken: never made ahead again this batch. */
  private readonly taken = new Set<string>();
  private readonly stopped = new AbortController();

  constructor(private readonly deps: CopyAheadDeps) {}

  /** `file`'s copy: the one made ahead, or one made now; then the next photos' copies are started. */
  take(file: Pick<ListedFile, 'id' | 'file'>, exif: PhotoExif | null): Promise<CopyResult> {
    this.taken.add(file.id);
    const made = this.ahead.get(file.id) ?? this.make(file.file, exif);
    this.ahead.delete(file.id);
    this.fill();
    return made;
  }

  /** Starts copies of the next photos still to send, until `depth` are made or being made. */
  private fill(): void {
    const depth = this.deps.depth ?? COPIES_AHEAD;
    if (this.stopped.signal.aborted || this.ahead.size >= depth) return;
    for (const f of this.deps.upcoming()) {
      if (this.ahead.size >= depth) return;
      // An original sent after its copy needs no copy; a photo still being checked may yet be skipped.
      if (f.upgrade || f.status.kind !== 'waiting' || this.taken.has(f.id) || this.ahead.has(f.id)) continue;
      const made = this.make(f.file, this.deps.exifOf ? this.deps.exifOf(f) : (f.exif ?? null));
      // Made ahead and never taken (the batch stopped): its failure is nobody's to hear.
      made.catch(() => undefined);
      this.ahead.set(f.id, made);
    }
  }

  private make(file: Blob, exif: PhotoExif | null): Promise<CopyResult> {
    return this.deps.maker.make(file, exif, this.stopped.signal);
  }

  /** The batch ended: copies being made ahead are abandoned (their workers' jobs dropped). */
  stop(): void {
    this.stopped.abort();
    this.ahead.clear();
  }
}
