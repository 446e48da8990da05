/**
 * cognito-local's data store (its users and clients JSON files), written so that the file on disk
 * is always a whole, parseable version. cognito-local's own store (StormDB's file engine) runs one
 * `fs.writeFile` per change with nothing ordering them, so overlapping changes interleave their
 * bytes and can leave the file unparseable — and then the next start fails on it.
 *
 * Here writes are serialized (one at a time, each serializing the state as it is when it starts,
 * so every change that was made before a save is in the version that save writes) and each goes
 * to a temporary file in the same directory that is then renamed over the old one: a reader or a
 * crash sees the old version or the new one, never half of each.
 *
 * Same on-disk format and semantics as cognito-local's StormDBDataStore (its `*Date` fields as ISO
 * strings, revived as `Date`s), so existing data directories keep working.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from 'cognito-local/lib/services/context';
import type { DataStore } from 'cognito-local/lib/services/dataStore/dataStore';
import type { DataStoreFactory } from 'cognito-local/lib/services/dataStore/factory';

type Json = Record<string, unknown>;

/** cognito-local's serializer: every `*Date` field must be a Date and is written as an ISO string. */
function replaceDatesWithIsoStrings(this: Record<string, unknown>, key: string, value: unknown): unknown {
  if (!key.endsWith('Date')) return value;
  const original = this[key];
  if (!(original instanceof Date)) throw new Error(`Serialize: Expected ${key} field to contain a Date, received a ${typeof original}`);
  return original.toISOString();
}

/** cognito-local's reviver: `*Date` fields (ISO string or epoch ms) become Dates. */
function reviveDates(key: string, value: unknown): unknown {
  if (!key.endsWith('Date')) return value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value === 'string') return new Date(Date.parse(value));
  throw new Error(`Deserialize: Expected ${key} to contain a String or Number, received a ${typeof value}`);
}

const keyPath = (key: string | string[]): string[] => (Array.isArray(key) ? key : [key]);

let tempCounter = 0;
const tempName = (file: string) => `${file}.${process.pid}.${++tempCounter}.tmp`;

/** Writes `text` to `file` through a temporary file and a rename. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = tempName(file);
  try {
    await writeFile(temp, text);
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** One JSON file, held in memory, saved whole after every change. */
export class AtomicJsonDataStore implements DataStore {
  private queue: Promise<void> = Promise.resolve();
  /** A save queued behind the one under way and not started yet: later changes join it. */
  private pending: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private state: Json,
  ) {}

  /**
   * Saves the current state after any save already under way; changes made while one waits share
   * it (it serializes the state when it starts). A save that fails rejects its callers' promises
   * but does not stop the ones after it.
   */
  save(): Promise<void> {
    if (this.pending) return this.pending;
    const next = this.queue.then(() => {
      this.pending = undefined;
      return writeAtomically(this.file, JSON.stringify(this.state, replaceDatesWithIsoStrings, 2));
    });
    this.pending = next;
    this.queue = next.catch(() => undefined);
    return next;
  }

  getRoot<T>(_ctx: Context): Promise<T | null> {
    return Promise.resolve((this.state as T) ?? null);
  }

  get<T>(ctx: Context, key: string | string[]): Promise<T | null>;
  get<T>(ctx: Context, key: string | string[], defaultValue: T): Promise<T>;
  get<T>(_ctx: Context, key: string | string[], defaultValue?: T): Promise<T | null> {
    let value: unknown = this.state;
    for (const k of keyPath(key)) {
      if (value === null || typeof value !== 'object') {
        value = undefined;
        break;
      }
      value = (value as Json)[k];
    }
    return Promise.resolve((value as T | undefined) ?? defaultValue ?? null);
  }

  set<T>(_ctx: Context, key: string | string[], value: T): Promise<void> {
    const keys = keyPath(key);
    let parent = this.state;
    for (const k of keys.slice(0, -1)) {
      const child = parent[k];
      if (child === null || typeof child !== 'object') parent[k] = {};
      parent = parent[k] as Json;
    }
    parent[keys.at(-1) as string] = value;
    return this.save();
  }

  delete(_ctx: Context, key: string | string[]): Promise<void> {
    const keys = keyPath(key);
    let parent: unknown = this.state;
    for (const k of keys.slice(0, -1)) parent = parent !== null && typeof parent === 'object' ? (parent as Json)[k] : undefined;
    if (parent !== null && typeof parent === 'object') delete (parent as Json)[keys.at(-1) as string];
    return this.save();
  }
}

/** Reads `file` (a missing or empty one is `{}`); a file that does not parse stops here, naming it. */
export function readJsonStore(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  if (text === '') return {};
  try {
    return JSON.parse(text, reviveDates) as Json;
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message})`);
  }
}

/** Writes a JSON file the way the store does (temporary file, then rename), for files written before the store runs. */
export function writeJsonFileAtomically(file: string, value: unknown): void {
  const temp = tempName(file);
  try {
    writeFileSync(temp, JSON.stringify(value, null, 2));
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** cognito-local's DataStoreFactory with atomic, serialized saves: `<directory>/<id>.json`. */
export class AtomicJsonDataStoreFactory implements DataStoreFactory {
  constructor(private readonly directory: string) {}

  async create(_ctx: Context, id: string, defaults: object): Promise<AtomicJsonDataStore> {
    mkdirSync(this.directory, { recursive: true });
    const file = path.join(this.directory, `${id}.json`);
    const existing = readJsonStore(file);
    // As StormDB's `default`: the defaults only for a store that holds nothing yet.
    const state = Object.keys(existing).length === 0 ? (defaults as Json) : existing;
    const store = new AtomicJsonDataStore(file, state);
    await store.save();
    return store;
  }
}
