/** Limits of what the uploader accepts (docs/uploader.md#uploader-rules). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** What the filter needs of a chosen file: plain data, so it runs without a DOM. */
export interface FileFacts {
  name: string;
  size: number;
  lastModified: number;
  /**
   * Where the file sits in a picked or dropped folder, top folder first ("DCIM/100MEDIA/a.jpg"):
   * a photo-named file inside ".Trashes/" is a deleted copy, not one to send. Empty or absent
   * for a loose file.
   */
  path?: string;
}

/**
 * Why a chosen file is not sent: the instant checks (hidden or system file, empty, a video, not
 * named as a JPEG, too large) and those that read the file (not a JPEG's bytes, unreadable, the
 * same photo listed twice, or already uploaded for this ranch according to the journal).
 */
export type SkipReason = 'hidden' | 'empty' | 'video' | 'not-jpeg' | 'too-large' | 'duplicate' | 'unreadable' | 'already-uploaded';

export interface SkippedFile {
  name: string;
  reason: SkipReason;
}

/** `.jpg` / `.jpeg` in any case. */
export function hasJpegExtension(name: string): boolean {
  return /\.jpe?g$/i.test(name);
}

/** A JPEG starts with the SOI marker FF D8 followed by a marker's FF. */
export function hasJpegSignature(head: Uint8Array): boolean {
  return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
}

/** The original extension, lower-cased, with its dot (".jpg"); "" if none. */
export function extensionOf(name: string): string {
  const m = /\.[A-Za-z0-9]{1,10}$/.exec(name);
  return m ? m[0].toLowerCase() : '';
}

/** Files Windows leaves on a card: thumbnail caches and folder settings (lower-cased). */
const SYSTEM_FILE_NAMES = new Set(['thumbs.db', 'ehthumbs.db', 'desktop.ini']);
/** Folders Windows keeps on removable drives (lower-cased); macOS's all start with ".". */
const SYSTEM_FOLDER_NAMES = new Set(['system volume information', '$recycle.bin']);

/**
 * A file no one chose on purpose: a name starting with "." (macOS's .DS_Store and `._*`
 * AppleDouble metadata, which keep the photo's name and extension but hold no photo), Windows'
 * Thumbs.db and desktop.ini, or anything inside a hidden or system folder (.Trashes,
 * .Spotlight-V100, System Volume Information, $RECYCLE.BIN), as the path tells.
 */
export function isHiddenOrSystemFile(name: string, path = ''): boolean {
  if (name.startsWith('.') || SYSTEM_FILE_NAMES.has(name.toLowerCase())) return true;
  const folders = path.split('/').slice(0, -1);
  return folders.some((folder) => folder.startsWith('.') || SYSTEM_FOLDER_NAMES.has(folder.toLowerCase()));
}

/** What cameras record besides photos (trail cameras: AVI, MP4, MOV), by extension in any case. */
const VIDEO_EXTENSIONS = new Set(['.mp4', '.mov', '.avi', '.mts', '.m2ts', '.3gp', '.mkv', '.wmv', '.m4v', '.mpg', '.mpeg', '.asf']);

/** Named as a video: told apart from other non-JPEGs because a card can hold hundreds. */
export function hasVideoExtension(name: string): boolean {
  return VIDEO_EXTENSIONS.has(extensionOf(name));
}

/**
 * The checks that need no bytes, first match wins: hidden or system file (even when empty or
 * named ".JPG"), empty, a video, not named as a JPEG, too large. `null` means the file's first
 * bytes decide.
 */
export function precheck(file: FileFacts): SkipReason | null {
  if (isHiddenOrSystemFile(file.name, file.path)) return 'hidden';
  if (file.size === 0) return 'empty';
  if (hasVideoExtension(file.name)) return 'video';
  if (!hasJpegExtension(file.name)) return 'not-jpeg';
  if (file.size > MAX_FILE_BYTES) return 'too-large';
  return null;
}

export interface PrecheckResult<F> {
  /** Worth reading: their first bytes and fingerprints are checked afterwards. */
  accepted: F[];
  skipped: SkippedFile[];
}

/**
 * The instant part of filtering a selection: everything that needs no bytes (`precheck`). Reading
 * 10,000 files' first bytes takes seconds, so it must not stand between the picker and the list;
 * duplicates and photos already uploaded are told by their fingerprints, which follow.
 */
export function precheckSelection<F extends FileFacts>(files: readonly F[]): PrecheckResult<F> {
  const accepted: F[] = [];
  const skipped: SkippedFile[] = [];
  for (const file of files) {
    const reason = precheck(file);
    if (reason) skipped.push({ name: file.name, reason });
    else accepted.push(file);
  }
  return { accepted, skipped };
}
