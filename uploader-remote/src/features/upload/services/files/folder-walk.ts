/**
 * Walking what the user gave as a folder: a drop's entries (webkitGetAsEntry, subfolders read
 * with FileSystemDirectoryReader) or a picked FileSystemDirectoryHandle (showDirectoryPicker). A
 * card is 2,000–10,000 JPEGs under DCIM/100XXXXX, so everything here stays linear and bounded.
 *
 * Not the `file-selector` package, which does the same for many drop zones: it silently drops
 * .DS_Store and Thumbs.db (here they are found, and the filter counts them in the skip notice),
 * rejects the whole drop when one entry fails (Promise.all; here that entry is reported and the
 * rest found), flattens with reduce and spread (quadratic for 10,000 files), and starts every
 * `file()` call at once.
 *
 * No React, and no browser objects by name: the structural types below are what the walk uses of
 * them, so tests pass fakes and the real ones fit.
 */

import { formatInteger } from '../../model/en-us-format';

// --- what the walk uses of the browser's objects --------------------------------------------

/** A FileSystemEntry: a dropped file or folder, or one found inside a dropped folder. */
export interface EntryLike {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly name: string;
}

/** A FileSystemFileEntry. */
export interface FileEntryLike extends EntryLike {
  file(success: (file: File) => void, failure?: (error: unknown) => void): void;
}

/** A FileSystemDirectoryReader: each call gives the next batch (Chromium: at most 100), then []. */
export interface DirectoryReaderLike {
  readEntries(success: (entries: EntryLike[]) => void, failure?: (error: unknown) => void): void;
}

/** A FileSystemDirectoryEntry. */
export interface DirectoryEntryLike extends EntryLike {
  createReader(): DirectoryReaderLike;
}

/** A FileSystemHandle found in a folder; `kind` tells which of the two below it is. */
export interface HandleLike {
  readonly kind: 'file' | 'directory';
  readonly name: string;
}

/** A FileSystemFileHandle. */
export interface FileHandleLike extends HandleLike {
  readonly kind: 'file';
  getFile(): Promise<File>;
}

/** A FileSystemDirectoryHandle: its children through `values()`, or `entries()` where only that exists. */
export interface DirectoryHandleLike extends HandleLike {
  readonly kind: 'directory';
  values?(): AsyncIterable<HandleLike>;
  entries?(): AsyncIterable<[string, HandleLike]>;
}

/** A DataTransferItem. */
export interface DataTransferItemLike {
  readonly kind: string;
  getAsFile(): File | null;
  /** Absent in browsers without the entries API: the item is then taken as a plain file. */
  webkitGetAsEntry?(): EntryLike | null;
}

/** A DataTransfer (a drop event's). */
export interface DataTransferLike {
  readonly items?: { readonly length: number; readonly [index: number]: DataTransferItemLike };
  readonly files?: { readonly length: number; readonly [index: number]: File };
}

// --- results ---------------------------------------------------------------------------------

/** A file found, with its path inside what was dropped or picked ("DCIM/100MEDIA/IMG_0001.JPG"). */
export interface FoundFile {
  file: File;
  /** Top folder first, "/"-separated, as `File.webkitRelativePath`; a loose file's own name. */
  path: string;
}

/** A walk's files, and what it could not read: reported, never dropped, never ending the walk. */
export interface WalkResult {
  files: FoundFile[];
  unreadable: { path: string; reason: string }[];
}

export interface WalkOptions {
  /** Stops the walk: its promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Files found so far, every PROGRESS_EVERY files ("Reading folder… 2,000 files"). */
  onProgress?: (found: number) => void;
}

/** Files read at once: `file()`/`getFile()` each hold a browser task; 10,000 at once stall the tab. */
export const MAX_READS_IN_FLIGHT = 64;
/** How often `onProgress` is called: often enough to move, rarely enough not to render per file. */
export const PROGRESS_EVERY = 500;
/**
 * Entries seen before the walk gives up. The APIs expose no symlink loops, but a directory reader
 * that never returns its empty batch would otherwise read forever; no card comes near this.
 */
export const MAX_ENTRIES = 1_000_000;

// --- the walk --------------------------------------------------------------------------------

/** A file or folder from either API, as the walk sees it. */
type Node =
  | { kind: 'file'; name: string; read: () => Promise<File> }
  /** `add` takes each child in the order the browser gives them; false means stop listing. */
  | { kind: 'directory'; name: string; list: (add: (child: Node) => boolean) => Promise<void> }
  | { kind: 'other'; name: string };

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The folder walk was stopped.', 'AbortError');

/** An error as a person reads it: the browser's message (DOMException's), else its name. */
function reasonOf(error: unknown): string {
  if (typeof error === 'string' && error) return error;
  if (typeof error === 'object' && error !== null) {
    const { message, name } = error as { message?: unknown; name?: unknown };
    if (typeof message === 'string' && message) return message;
    if (typeof name === 'string' && name) return name;
  }
  return 'could not be read';
}

/** A callback API as a promise that also ends when the walk is stopped (a reader may never call back). */
function fromCallbacks<T>(start: (ok: (value: T) => void, fail: (error: unknown) => void) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => reject(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    try {
      start(
        (value) => (settle(), resolve(value)),
        (error) => (settle(), reject(error)),
      );
    } catch (error) {
      settle();
      reject(error);
    }
  });
}

/**
 * Depth-first, children in the order the browser lists them. Discovery is one sequential loop;
 * file reads run beside it, at most MAX_READS_IN_FLIGHT, each writing into the slot its file got
 * when found, so the result keeps the walk's order without sorting or concatenating.
 */
async function walk(roots: readonly Node[], { signal, onProgress }: WalkOptions = {}): Promise<WalkResult> {
  const slots: (FoundFile | null)[] = [];
  const unreadable: WalkResult['unreadable'] = [];
  let seen = 0;
  let found = 0;
  let inFlight = 0;
  let capped = false;
  // The walk loop is the only waiter (for room to read, or for the last reads).
  let wake: (() => void) | null = null;
  const nudge = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const waitForNudge = () => new Promise<void>((resolve) => (wake = resolve));
  const checkAborted = () => {
    if (signal?.aborted) throw abortReason(signal);
  };

  const read = (node: Extract<Node, { kind: 'file' }>, path: string) => {
    const slot = slots.push(null) - 1;
    inFlight++;
    let reading: Promise<File>;
    try {
      reading = node.read();
    } catch (error) {
      reading = Promise.reject(error);
    }
    reading
      .then(
        (file) => {
          slots[slot] = { file, path };
          found++;
          if (found % PROGRESS_EVERY === 0) onProgress?.(found);
        },
        (error: unknown) => void unreadable.push({ path, reason: reasonOf(error) }),
      )
      .finally(() => {
        inFlight--;
        nudge();
      });
  };

  const visit = async (node: Node, parent: string): Promise<void> => {
    checkAborted();
    const path = parent ? `${parent}/${node.name}` : node.name;
    if (node.kind === 'file') {
      while (inFlight >= MAX_READS_IN_FLIGHT) {
        await waitForNudge();
        checkAborted();
      }
      read(node, path);
      return;
    }
    if (node.kind === 'other') {
      unreadable.push({ path, reason: 'neither a file nor a folder' });
      return;
    }
    const children: Node[] = [];
    try {
      await node.list((child) => {
        if (++seen > MAX_ENTRIES) {
          capped = true;
          return false;
        }
        children.push(child);
        return true;
      });
    } catch (error) {
      checkAborted();
      // What was listed before the failure is still walked.
      unreadable.push({ path, reason: reasonOf(error) });
    }
    if (capped) {
      unreadable.push({ path, reason: `too many files (over ${formatInteger(MAX_ENTRIES)}): reading stopped here` });
      return;
    }
    for (const child of children) {
      await visit(child, path);
      if (capped) return;
    }
  };

  signal?.addEventListener('abort', nudge);
  try {
    for (const root of roots) {
      await visit(root, '');
      if (capped) break;
    }
    while (inFlight > 0) {
      await waitForNudge();
      checkAborted();
    }
  } finally {
    signal?.removeEventListener('abort', nudge);
  }
  const files: FoundFile[] = [];
  for (const f of slots) if (f) files.push(f);
  return { files, unreadable };
}

// --- dropped entries -------------------------------------------------------------------------

const isFileEntry = (entry: EntryLike): entry is FileEntryLike => entry.isFile && typeof (entry as Partial<FileEntryLike>).file === 'function';
const isDirectoryEntry = (entry: EntryLike): entry is DirectoryEntryLike =>
  entry.isDirectory && typeof (entry as Partial<DirectoryEntryLike>).createReader === 'function';

function entryNode(entry: EntryLike, signal?: AbortSignal): Node {
  if (isFileEntry(entry)) return { kind: 'file', name: entry.name, read: () => fromCallbacks<File>((ok, fail) => entry.file(ok, fail)) };
  if (!isDirectoryEntry(entry)) return { kind: 'other', name: entry.name };
  return {
    kind: 'directory',
    name: entry.name,
    list: async (add) => {
      const reader = entry.createReader();
      // One call gives one batch (100 in Chromium): the folder is read once a call gives none.
      for (;;) {
        const batch = await fromCallbacks<readonly EntryLike[]>((ok, fail) => reader.readEntries(ok, fail), signal);
        if (batch.length === 0) return;
        for (const child of batch) if (!add(entryNode(child, signal))) return;
      }
    },
  };
}

/** Every file in dropped entries, subfolders included; paths start at each entry's name. */
export function walkEntries(entries: readonly EntryLike[], options?: WalkOptions): Promise<WalkResult> {
  return walk(
    entries.map((entry) => entryNode(entry, options?.signal)),
    options,
  );
}

// --- a picked directory handle ---------------------------------------------------------------

async function* childHandles(handle: DirectoryHandleLike): AsyncGenerator<HandleLike> {
  if (handle.values) {
    yield* handle.values();
  } else if (handle.entries) {
    for await (const [, child] of handle.entries()) yield child;
  } else {
    throw new Error('This browser cannot list the folder.');
  }
}

function handleNode(handle: HandleLike, signal?: AbortSignal): Node {
  if (handle.kind === 'file') return { kind: 'file', name: handle.name, read: () => (handle as FileHandleLike).getFile() };
  if (handle.kind !== 'directory') return { kind: 'other', name: handle.name };
  return {
    kind: 'directory',
    name: handle.name,
    list: async (add) => {
      const children = childHandles(handle as DirectoryHandleLike);
      let done = false;
      try {
        while (!done) {
          const next = await fromCallbacks<IteratorResult<HandleLike>>((ok, fail) => void children.next().then(ok, fail), signal);
          done = !!next.done;
          if (!next.done && !add(handleNode(next.value, signal))) break;
        }
      } finally {
        // Left early (stopped, failed, too many): let the browser's iterator go.
        if (!done) void children.return(undefined).catch(() => undefined);
      }
    },
  };
}

/** Every file in a picked folder (showDirectoryPicker), subfolders included; paths start at its name. */
export function walkDirectoryHandle(handle: DirectoryHandleLike, options?: WalkOptions): Promise<WalkResult> {
  return walk([handleNode(handle, options?.signal)], options);
}

// --- drops and inputs ------------------------------------------------------------------------

/**
 * What a drop holds: entries to walk (files and folders) where the browser gives them, else plain
 * files. Call it inside the drop handler itself: the browser empties the items once it returns.
 */
export function entriesFromDataTransfer(dt: DataTransferLike): { entries: EntryLike[]; files: File[] } {
  const entries: EntryLike[] = [];
  const files: File[] = [];
  const items = dt.items;
  if (!items) {
    for (let i = 0; i < (dt.files?.length ?? 0); i++) files.push(dt.files![i]!);
    return { entries, files };
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item || item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.() ?? null;
    if (entry) {
      entries.push(entry);
      continue;
    }
    const file = item.getAsFile();
    if (file) files.push(file);
  }
  return { entries, files };
}

/** An input's files with their paths: a folder input's `webkitRelativePath`, else the name. */
export function filesFromInput(list: ArrayLike<File>): FoundFile[] {
  const found: FoundFile[] = [];
  for (let i = 0; i < list.length; i++) {
    const file = list[i]!;
    found.push({ file, path: file.webkitRelativePath || file.name });
  }
  return found;
}
