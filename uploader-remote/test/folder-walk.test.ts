import {
  entriesFromDataTransfer,
  filesFromInput,
  MAX_READS_IN_FLIGHT,
  PROGRESS_EVERY,
  walkDirectoryHandle,
  walkEntries,
  type DataTransferLike,
  type DirectoryEntryLike,
  type DirectoryHandleLike,
  type DirectoryReaderLike,
  type EntryLike,
  type FileEntryLike,
  type FileHandleLike,
  type HandleLike,
} from '../src/features/upload/services/files/folder-walk';

/** A folder tree as the fakes serve it: a file has no children. */
interface Tree {
  name: string;
  children?: Tree[];
}

const files = (prefix: string, n: number, first = 1): Tree[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}_${String(first + i).padStart(4, '0')}.JPG` }));

/** A card: DCIM/100MEDIA … 105MEDIA, and a burst folder one level deeper: 1,000 photos. */
const card = (): Tree => ({
  name: 'DCIM',
  children: [
    ...['100MEDIA', '101MEDIA', '102MEDIA', '103MEDIA', '104MEDIA'].map((name, k) => ({ name, children: files('IMG', 180, k * 180 + 1) })),
    { name: '105MEDIA', children: [...files('IMG', 50, 901), { name: 'BURST', children: files('BST', 50) }] },
  ],
});

/** Every file's path, depth-first in listing order: what a walk must return. */
const pathsOf = (tree: Tree, parent = ''): string[] => {
  const path = parent ? `${parent}/${tree.name}` : tree.name;
  return tree.children ? tree.children.flatMap((c) => pathsOf(c, path)) : [path];
};

/** What the fakes saw, and how they misbehave. */
class Browser {
  readCalls = 0;
  fileCalls = 0;
  inFlight = 0;
  maxInFlight = 0;
  largestBatch = 0;
  /** Paths whose reader (folders) or file()/getFile() (files) fails. */
  readonly failing = new Set<string>();
  /** Folders whose reader never calls back. */
  readonly hanging = new Set<string>();
  /** The hanging folders a walk has asked to list. */
  readonly hung: string[] = [];
  /** When set, each file read takes 1 ms on the (fake) clock, so reads overlap. */
  slow = false;

  private startRead(path: string, name: string, ok: (file: File) => void, fail: (error: unknown) => void): void {
    this.fileCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const finish = () => {
      this.inFlight--;
      if (this.failing.has(path)) fail(new DOMException('The requested file could not be read.', 'NotReadableError'));
      else ok(new File(['\xff\xd8\xff'], name));
    };
    if (this.slow) setTimeout(finish, 1);
    else queueMicrotask(finish);
  }

  entry(tree: Tree, parent = ''): EntryLike {
    const path = parent ? `${parent}/${tree.name}` : tree.name;
    if (!tree.children) {
      const file: FileEntryLike = {
        isFile: true,
        isDirectory: false,
        name: tree.name,
        file: (ok, fail) => this.startRead(path, tree.name, ok, (e) => fail?.(e)),
      };
      return file;
    }
    const children = tree.children;
    const dir: DirectoryEntryLike = {
      isFile: false,
      isDirectory: true,
      name: tree.name,
      createReader: (): DirectoryReaderLike => {
        let next = 0;
        return {
          readEntries: (ok, fail) => {
            this.readCalls++;
            if (this.hanging.has(path)) return void this.hung.push(path);
            queueMicrotask(() => {
              if (this.failing.has(path)) return fail?.(new DOMException('A requested file or directory could not be found.', 'NotFoundError'));
              // Like Chromium: at most 100 entries a call, then an empty batch.
              const batch = children.slice(next, next + 100).map((c) => this.entry(c, path));
              next += batch.length;
              this.largestBatch = Math.max(this.largestBatch, batch.length);
              ok(batch);
            });
          },
        };
      },
    };
    return dir;
  }

  handle(tree: Tree, parent = '', api: 'values' | 'entries' = 'values'): HandleLike {
    const path = parent ? `${parent}/${tree.name}` : tree.name;
    if (!tree.children) {
      const file: FileHandleLike = {
        kind: 'file',
        name: tree.name,
        getFile: () => new Promise<File>((ok, fail) => this.startRead(path, tree.name, ok, fail)),
      };
      return file;
    }
    const children = tree.children;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- an async generator cannot be an arrow function
    const browser = this;
    async function* list(): AsyncGenerator<HandleLike> {
      browser.readCalls++;
      if (browser.failing.has(path)) throw new DOMException('A requested file or directory could not be found.', 'NotFoundError');
      for (const c of children) yield browser.handle(c, path, api);
    }
    const dir: DirectoryHandleLike =
      api === 'values'
        ? { kind: 'directory', name: tree.name, values: list }
        : {
            kind: 'directory',
            name: tree.name,
            entries: async function* () {
              for await (const h of list()) yield [h.name, h] as [string, HandleLike];
            },
          };
    return dir;
  }
}

// On jest's fake clock (slow reads take clock time); the fakes' folder listings and fast reads
// stay microtasks.
beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

/** Runs the clock until nothing is left to do (every slow read done), then gives the walk's outcome. */
async function finished<T>(walk: Promise<T>): Promise<T> {
  await jest.runAllTimersAsync();
  return walk;
}

const pathsFound = (r: { files: { path: string }[] }) => r.files.map((f) => f.path);

describe('walkEntries (a dropped folder)', () => {
  it('finds 1,000 photos in nested folders, reading each folder until an empty batch', async () => {
    const browser = new Browser();
    const result = await walkEntries([browser.entry(card())]);
    expect(pathsFound(result)).toEqual(pathsOf(card()));
    expect(result.files).toHaveLength(1000);
    expect(result.files[0]).toMatchObject({ path: 'DCIM/100MEDIA/IMG_0001.JPG' });
    expect(result.files[0]!.file.name).toBe('IMG_0001.JPG');
    expect(result.files.at(-1)).toMatchObject({ path: 'DCIM/105MEDIA/BURST/BST_0050.JPG' });
    expect(result.unreadable).toEqual([]);
    expect(browser.largestBatch).toBe(100);
    // 180 entries: two batches and the empty one, for each of the five folders; DCIM, 105MEDIA, BURST: one and the empty one.
    expect(browser.readCalls).toBe(5 * 3 + 3 * 2);
  });

  it('a dropped loose file is found under its own name', async () => {
    const browser = new Browser();
    const result = await walkEntries([browser.entry({ name: 'IMG_9999.JPG' }), browser.entry({ name: 'trip', children: files('IMG', 2) })]);
    expect(pathsFound(result)).toEqual(['IMG_9999.JPG', 'trip/IMG_0001.JPG', 'trip/IMG_0002.JPG']);
  });

  it('a folder that cannot be read is reported and the rest is found', async () => {
    const browser = new Browser();
    browser.failing.add('DCIM/102MEDIA');
    const result = await walkEntries([browser.entry(card())]);
    expect(result.files).toHaveLength(820);
    expect(pathsFound(result)).toEqual(pathsOf(card()).filter((p) => !p.startsWith('DCIM/102MEDIA/')));
    expect(result.unreadable).toEqual([{ path: 'DCIM/102MEDIA', reason: 'A requested file or directory could not be found.' }]);
  });

  it('a file that cannot be read is reported and the rest is found', async () => {
    const browser = new Browser();
    browser.failing.add('DCIM/105MEDIA/BURST/BST_0007.JPG');
    const result = await walkEntries([browser.entry(card())]);
    expect(result.files).toHaveLength(999);
    expect(result.unreadable).toEqual([{ path: 'DCIM/105MEDIA/BURST/BST_0007.JPG', reason: 'The requested file could not be read.' }]);
  });

  it(`reads at most ${MAX_READS_IN_FLIGHT} files at once`, async () => {
    const browser = new Browser();
    browser.slow = true;
    const result = await finished(walkEntries([browser.entry(card())]));
    expect(result.files).toHaveLength(1000);
    expect(browser.fileCalls).toBe(1000);
    expect(browser.maxInFlight).toBe(MAX_READS_IN_FLIGHT);
  });

  it(`tells progress every ${PROGRESS_EVERY} files`, async () => {
    const browser = new Browser();
    const progress: number[] = [];
    await walkEntries([browser.entry(card())], { onProgress: (n) => progress.push(n) });
    expect(progress).toEqual([500, 1000]);
  });

  it('stops on a reader that never returns its empty batch', async () => {
    const same = new Browser().entry({ name: 'IMG_0001.JPG' });
    const endless: DirectoryEntryLike = {
      isFile: false,
      isDirectory: true,
      name: 'loop',
      createReader: () => ({ readEntries: (ok) => queueMicrotask(() => ok(Array.from({ length: 100 }, () => same))) }),
    };
    const browser = new Browser();
    const result = await walkEntries([browser.entry({ name: 'first.jpg' }), endless, browser.entry({ name: 'after.jpg' })]);
    expect(pathsFound(result)).toEqual(['first.jpg']);
    expect(result.unreadable).toEqual([{ path: 'loop', reason: expect.stringMatching(/^too many files/) }]);
  });

  it('an entry neither a file nor a folder is reported', async () => {
    const odd: EntryLike = { isFile: false, isDirectory: false, name: 'odd' };
    expect(await walkEntries([odd])).toEqual({ files: [], unreadable: [{ path: 'odd', reason: 'neither a file nor a folder' }] });
  });
});

describe('stopping a walk', () => {
  it('does not start when already stopped', async () => {
    const browser = new Browser();
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);
    await expect(walkEntries([browser.entry(card())], { signal: controller.signal })).rejects.toBe(reason);
    expect(browser.readCalls + browser.fileCalls).toBe(0);
  });

  it('stops reading folders and files once stopped', async () => {
    const browser = new Browser();
    const controller = new AbortController();
    const reason = new Error('stopped');
    let callsAtStop = -1;
    const stop = () => {
      if (controller.signal.aborted) return;
      controller.abort(reason);
      callsAtStop = browser.readCalls + browser.fileCalls;
    };
    const walk = walkEntries([browser.entry(card())], { signal: controller.signal, onProgress: stop });
    await expect(walk).rejects.toBe(reason);
    // Whatever the walk had queued has run by now.
    await jest.runAllTimersAsync();
    expect(callsAtStop).toBeGreaterThan(0);
    expect(browser.fileCalls).toBeLessThan(1000);
    expect(browser.readCalls + browser.fileCalls).toBe(callsAtStop);
  });

  it('stops while a folder reader never answers', async () => {
    const browser = new Browser();
    browser.hanging.add('DCIM/101MEDIA');
    const controller = new AbortController();
    const walk = walkEntries([browser.entry(card())], { signal: controller.signal });
    // The walk goes as far as it can: to the reader that never answers.
    await jest.runAllTimersAsync();
    expect(browser.hung).toEqual(['DCIM/101MEDIA']);
    controller.abort(new Error('stopped'));
    await expect(walk).rejects.toThrow('stopped');
  });

  it('stops a directory-handle walk', async () => {
    const browser = new Browser();
    const controller = new AbortController();
    const walk = walkDirectoryHandle(browser.handle(card()) as DirectoryHandleLike, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(walk).rejects.toBeDefined();
    expect(browser.fileCalls).toBeLessThan(1000);
  });
});

describe('walkDirectoryHandle (a picked folder)', () => {
  it('finds the same 1,000 photos through values()', async () => {
    const browser = new Browser();
    const result = await walkDirectoryHandle(browser.handle(card()) as DirectoryHandleLike);
    expect(pathsFound(result)).toEqual(pathsOf(card()));
    expect(result.unreadable).toEqual([]);
  });

  it('and through entries() where values() is missing', async () => {
    const browser = new Browser();
    const result = await walkDirectoryHandle(browser.handle(card(), '', 'entries') as DirectoryHandleLike);
    expect(pathsFound(result)).toEqual(pathsOf(card()));
  });

  it(`reads at most ${MAX_READS_IN_FLIGHT} files at once, and reports what fails`, async () => {
    const browser = new Browser();
    browser.slow = true;
    browser.failing.add('DCIM/103MEDIA');
    browser.failing.add('DCIM/100MEDIA/IMG_0002.JPG');
    const result = await finished(walkDirectoryHandle(browser.handle(card()) as DirectoryHandleLike));
    expect(result.files).toHaveLength(1000 - 180 - 1);
    expect(browser.maxInFlight).toBe(MAX_READS_IN_FLIGHT);
    expect(result.unreadable).toEqual(
      expect.arrayContaining([
        { path: 'DCIM/103MEDIA', reason: 'A requested file or directory could not be found.' },
        { path: 'DCIM/100MEDIA/IMG_0002.JPG', reason: 'The requested file could not be read.' },
      ]),
    );
    expect(result.unreadable).toHaveLength(2);
  });

  it('reports a folder the browser cannot list', async () => {
    const bare: DirectoryHandleLike = { kind: 'directory', name: 'DCIM' };
    expect(await walkDirectoryHandle(bare)).toEqual({ files: [], unreadable: [{ path: 'DCIM', reason: 'This browser cannot list the folder.' }] });
  });
});

describe('entriesFromDataTransfer', () => {
  it('takes entries where the browser gives them, else plain files, and only file items', async () => {
    const browser = new Browser();
    const folder = browser.entry({ name: 'DCIM', children: [{ name: '100MEDIA', children: files('IMG', 3) }] });
    const loose = new File(['x'], 'loose.jpg');
    const old = new File(['x'], 'old-browser.jpg');
    const dt: DataTransferLike = {
      items: [
        { kind: 'file', webkitGetAsEntry: () => folder, getAsFile: () => null },
        { kind: 'file', webkitGetAsEntry: () => null, getAsFile: () => loose },
        { kind: 'string', webkitGetAsEntry: () => null, getAsFile: () => null },
        { kind: 'file', getAsFile: () => old },
      ],
    };
    const dropped = entriesFromDataTransfer(dt);
    expect(dropped.entries).toEqual([folder]);
    expect(dropped.files).toEqual([loose, old]);
    expect(pathsFound(await walkEntries(dropped.entries))).toEqual(['DCIM/100MEDIA/IMG_0001.JPG', 'DCIM/100MEDIA/IMG_0002.JPG', 'DCIM/100MEDIA/IMG_0003.JPG']);
  });

  it('takes the plain files where there are no items', () => {
    const a = new File(['x'], 'a.jpg');
    expect(entriesFromDataTransfer({ files: [a] })).toEqual({ entries: [], files: [a] });
  });
});

describe('filesFromInput', () => {
  it('uses a folder input’s relative path, else the name', () => {
    const inFolder = new File(['x'], 'IMG_0001.JPG');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'DCIM/100MEDIA/IMG_0001.JPG' });
    const picked = new File(['x'], 'IMG_0002.JPG');
    Object.defineProperty(picked, 'webkitRelativePath', { value: '' });
    expect(filesFromInput([inFolder, picked])).toEqual([
      { file: inFolder, path: 'DCIM/100MEDIA/IMG_0001.JPG' },
      { file: picked, path: 'IMG_0002.JPG' },
    ]);
  });
});

describe('types', () => {
  it('the browser’s own objects fit the walk’s types (checked when compiled)', () => {
    const fit = (real: {
      dt: DataTransfer;
      entry: FileSystemEntry;
      file: FileSystemFileEntry;
      dir: FileSystemDirectoryEntry;
      reader: FileSystemDirectoryReader;
      handle: FileSystemDirectoryHandle;
      fileHandle: FileSystemFileHandle;
    }) => {
      const ours: {
        dt: DataTransferLike;
        entry: EntryLike;
        file: FileEntryLike;
        dir: DirectoryEntryLike;
        reader: DirectoryReaderLike;
        handle: DirectoryHandleLike;
        fileHandle: FileHandleLike;
      } = real;
      return ours;
    };
    expect(typeof fit).toBe('function');
  });
});
