/**
 * The deploy planner: pure. From an app's build (paths, sizes, MD5s), what its bucket holds now
 * and the release records found there, it decides what to upload and in which order, what is
 * already there and identical, what to delete, and which paths to invalidate. infra/README.md
 * ("Deploy command") explains the rules; infra/test/deploy-plan.test.ts checks them.
 *
 * Order (order.ts): hashed files first, then their companions, the entry files' copies, and the
 * entry files that name them last — in an order where a stop at any write leaves each page whole
 * and, for a remote, the live mf-manifest.json naming files of its own release.
 *
 * Releases: every deploy ends by writing a record of its files (`_releases/<time>-<id>.json`),
 * and keeps a copy of each entry file under `_releases/entry-files/<md5>` (uploaded before the
 * entry files themselves) so that a rollback (rollback-plan.ts) can put them back. Pruning deletes
 * hashed files, companions and entry-file copies that none of the last `keep` releases (the new
 * one included) lists, when they are older than those releases: listed only by older records, or
 * listed by none (left by a failed deploy, or uploaded before this command) and last modified
 * before the oldest kept release's record was written. A tab opened on the previous release keeps
 * finding its chunks. Entry files and unrecorded files of other names are never deleted.
 */
import { cacheControlOf, contentTypeOf, exclusionOf, isHashed, kindOf } from './files';
import type { AppName } from './files';
import { invalidationPathsFor, MANIFEST, orderSteps, switchNote } from './order';
import type { RemoteEntries } from './order';
import type { ReleaseFile, RoutedPaths, UploadStep } from './release-files';

/** A file of the build (or the shell's config.json), `path` relative with `/`. */
export interface LocalFile {
  path: string;
  size: number;
  /** MD5 of the content, lower-case hex: what S3 reports as the ETag of a single-part upload. */
  md5: string;
}

/** An object in the bucket, its key relative to the target prefix. */
export interface StoredObject {
  key: string;
  /** The ETag without quotes. */
  etag: string;
  size: number;
  /** S3's Last-Modified. Unknown: an unrecorded object is never pruned. */
  lastModified?: Date;
}

/** What `_releases/<time>-<id>.json` holds. */
export interface ReleaseRecord {
  format: 1;
  app: AppName;
  id: string;
  /** ISO time of the deploy. */
  createdAt: string;
  files: ReleaseFile[];
  /** A rollback's record: the release it undid (`from`) and the one whose files it made live again (`to`), record keys. */
  rollback?: { from: string; to: string };
}

export interface StoredRelease {
  /** Relative key, `_releases/…json`. */
  key: string;
  record: ReleaseRecord;
}

export interface PlanInput {
  app: AppName;
  files: LocalFile[];
  stored: StoredObject[];
  releases: StoredRelease[];
  /** How many releases keep their files, the new one included (≥ 1). */
  keep: number;
  releaseId: string;
  now: Date;
  /** The shell's routes.json: its routed paths are invalidated with their pages. */
  routes?: RoutedPaths;
  /** A remote: the entry script its live mf-manifest.json and the build's name (order.ts). */
  entries?: RemoteEntries;
}

export interface DeployPlan {
  app: AppName;
  /** The new release record and its key. */
  releaseKey: string;
  release: ReleaseRecord;
  /** Non-empty steps, in order. */
  steps: UploadStep[];
  /** In the release, already in the bucket with the same content and headers. */
  unchanged: ReleaseFile[];
  excluded: { path: string; reason: string }[];
  /** Keys of hashed files, companions and entry-file copies older than the last `keep` releases and listed by none of them. */
  deletions: string[];
  /** Of the deletions, those no record lists (a failed deploy's, or older than the records). */
  unrecordedDeletions: number;
  /** Records of the releases past `keep`, deleted after their files. */
  expiredReleases: string[];
  /** Keys in the bucket no record lists: kept. */
  unknown: string[];
  /** CloudFront paths: the changed entry files and the viewer paths that serve them. */
  invalidationPaths: string[];
  /** The live release's record (the newest) when the plan was made; absent when none is recorded. */
  live?: string;
  /** Entry files of the release the bucket does not hold yet (new paths). */
  entriesNotInBucket: string[];
  /** The ETag each entry path had when the plan was made: its write is conditional on it (execute.ts); a path not here, on there being none. */
  entryEtags: Record<string, string>;
  /** A remote whose switch takes two writes: why (order.ts switchNote). */
  switchNote?: string;
  /** A remote: the entry script the live manifest and the release's name. */
  entries?: RemoteEntries;
}

/** The deploy command's own objects: release records, entry-file copies, the lock. Not served (src/stacks/hosting-stack.ts). */
export const RELEASES_PREFIX = '_releases/';
/** Where each release's entry files are copied, by content, for a rollback. */
export const ENTRY_COPIES_PREFIX = `${RELEASES_PREFIX}entry-files/`;

export function entryCopyKey(md5: string): string {
  return `${ENTRY_COPIES_PREFIX}${md5}`;
}

/** `_releases/<name>.json`: a release record (not a copy, not the lock). */
export function isReleaseRecordKey(key: string): boolean {
  return /^_releases\/[^/]+\.json$/.test(key);
}

/** The keys of the bucket a release's files occupy that pruning may delete: its hashed files and companions, its entry files' copies. */
function prunableKeysOf(files: readonly ReleaseFile[]): string[] {
  return files.map((f) => (f.kind === 'entry' ? entryCopyKey(f.md5) : f.path));
}

/** The stored ETag of each of `files`' entry paths the bucket holds. */
export function entryEtagsOf(files: readonly ReleaseFile[], stored: readonly StoredObject[]): Record<string, string> {
  const etags = new Map(stored.map((o) => [o.key, o.etag]));
  const result: Record<string, string> = {};
  for (const file of files) {
    const etag = etags.get(file.path);
    if (file.kind === 'entry' && etag !== undefined) result[file.path] = etag;
  }
  return result;
}

/** Newest first: a release record's name starts with its time. */
export function newestFirst(releases: readonly StoredRelease[]): StoredRelease[] {
  return [...releases].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
}

export class PlanError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Cannot deploy:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PlanError';
  }
}

/** The files each app's build must have to be served at all. */
const REQUIRED: Record<AppName, string[]> = {
  shell: ['index.html', 'app.html', 'routes.json', 'config.json'],
  'auth-remote': ['remoteEntry.js', 'mf-manifest.json'],
  'uploader-remote': ['remoteEntry.js', 'mf-manifest.json'],
};

/** `2026-05-04T10-21-33.123Z-3f9a1c`: sorts as time does; no `:` (awkward in keys and file systems). */
export function releaseName(now: Date, id: string): string {
  return `${now.toISOString().replace(/:/g, '-')}-${id}`;
}

/** What is wrong with writing a new record of `app` among `releases` (another app's bucket; a clock behind the newest record). */
export function releaseProblems(app: AppName, releases: readonly StoredRelease[], now: Date): string[] {
  const problems: string[] = [];
  const foreign = releases.find((r) => r.record.app !== app);
  if (foreign) problems.push(`the target holds releases of ${foreign.record.app} (${foreign.key}), not of ${app}: is it the right bucket?`);
  const newest = newestFirst(releases)[0];
  // The newest record is the live release (a rollback relies on it): a new one must not sort before it.
  if (newest && `${RELEASES_PREFIX}${releaseName(now, '')}` < newest.key.slice(0, newest.key.indexOf('Z-') + 2)) {
    problems.push(`this machine's clock (${now.toISOString()}) is behind the newest release record (${newest.key}): set the clock right first.`);
  }
  return problems;
}

export function planDeploy(input: PlanInput): DeployPlan {
  const problems: string[] = [];
  if (!Number.isInteger(input.keep) || input.keep < 1) problems.push(`keep must be a whole number of at least 1 (got ${input.keep}).`);
  if (!/^[0-9a-z]{1,16}$/.test(input.releaseId))
    problems.push(`the release id must be 1–16 lower-case letters or digits (got ${JSON.stringify(input.releaseId)}).`);

  const excluded: { path: string; reason: string }[] = [];
  const shipped: LocalFile[] = [];
  for (const file of input.files) {
    const reason = exclusionOf(file.path);
    if (reason) excluded.push({ path: file.path, reason });
    else if (file.path.startsWith(RELEASES_PREFIX))
      problems.push(`${file.path}: ${RELEASES_PREFIX} is where the release records go; the build must not have it.`);
    else shipped.push(file);
  }
  const present = new Set(shipped.map((f) => f.path));
  for (const path of REQUIRED[input.app]) {
    if (!present.has(path)) problems.push(`${path} is missing: ${input.app}'s release must have it.`);
  }
  const named = input.entries?.next;
  if (input.app !== 'shell' && input.entries && named === undefined) problems.push(`${MANIFEST} names no entry script (metaData.remoteEntry.name).`);
  if (named !== undefined && !present.has(named)) problems.push(`${MANIFEST} names ${named} as its entry script, which the build does not have.`);
  problems.push(...releaseProblems(input.app, input.releases, input.now));
  if (problems.length > 0) throw new PlanError(problems);

  const hashedPaths = new Set(shipped.filter((f) => isHashed(f.path)).map((f) => f.path));
  const files: ReleaseFile[] = shipped
    .map((f) => {
      const kind = kindOf(f.path, hashedPaths);
      return { path: f.path, size: f.size, md5: f.md5, kind, contentType: contentTypeOf(f.path), cacheControl: cacheControlOf(kind) };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));

  const releases = newestFirst(input.releases);
  const storedByKey = new Map(input.stored.map((o) => [o.key, o]));
  const recorded = (path: string) => {
    for (const release of releases) {
      const file = release.record.files.find((f) => f.path === path);
      if (file) return file;
    }
    return undefined;
  };
  // Identical: S3 holds the same bytes (its ETag is their MD5) and a record says it was uploaded
  // with the same headers. Without a record the object is uploaded again (its headers are unknown).
  const unchanged: ReleaseFile[] = [];
  const uploads: ReleaseFile[] = [];
  for (const file of files) {
    const stored = storedByKey.get(file.path);
    const previous = recorded(file.path);
    const same =
      stored !== undefined &&
      stored.etag === file.md5 &&
      previous !== undefined &&
      previous.md5 === file.md5 &&
      previous.contentType === file.contentType &&
      previous.cacheControl === file.cacheControl;
    (same ? unchanged : uploads).push(file);
  }

  const name = releaseName(input.now, input.releaseId);
  const release: ReleaseRecord = { format: 1, app: input.app, id: input.releaseId, createdAt: input.now.toISOString(), files };

  const copies = new Map<string, ReleaseFile>();
  for (const file of files) {
    if (file.kind === 'entry' && !storedByKey.has(entryCopyKey(file.md5)) && !copies.has(file.md5)) copies.set(file.md5, file);
  }

  const kept = releases.slice(0, input.keep - 1);
  const expired = releases.slice(input.keep - 1);
  const keptFiles = [...files, ...kept.flatMap((r) => r.record.files)];
  const keptKeys = new Set([...keptFiles.map((f) => f.path), ...prunableKeysOf(keptFiles)]);
  const expiredKeys = new Set(expired.flatMap((r) => prunableKeysOf(r.record.files)));
  const allFiles = [...files, ...releases.flatMap((r) => r.record.files)];
  const everRecorded = new Set([...allFiles.map((f) => f.path), ...prunableKeysOf(allFiles)]);
  // Unrecorded objects are older than the kept releases when last modified (S3's clock, as the
  // record's) before the oldest kept one's record was written. With fewer records than that, the
  // release before the first record is unknown: nothing unrecorded is old enough. With keep 1,
  // everything in the bucket before this deploy is older than the one release kept.
  const oldestKept = input.keep === 1 ? undefined : kept.length === input.keep - 1 ? kept[kept.length - 1] : null;
  const cutoff =
    oldestKept === undefined ? Infinity : oldestKept === null ? -Infinity : (storedByKey.get(oldestKept.key)?.lastModified?.getTime() ?? -Infinity);
  const storedHashed = new Set(input.stored.map((o) => o.key).filter((key) => isHashed(key)));
  const prunableName = (key: string) => key.startsWith(ENTRY_COPIES_PREFIX) || (!key.startsWith(RELEASES_PREFIX) && kindOf(key, storedHashed) !== 'entry');
  let unrecordedDeletions = 0;
  const deletions = input.stored
    .filter((o) => {
      if (keptKeys.has(o.key)) return false;
      if (expiredKeys.has(o.key)) return true;
      const old = !everRecorded.has(o.key) && prunableName(o.key) && o.lastModified !== undefined && o.lastModified.getTime() < cutoff;
      if (old) unrecordedDeletions += 1;
      return old;
    })
    .map((o) => o.key)
    .sort();
  const deleted = new Set(deletions);
  const unknown = input.stored
    .map((o) => o.key)
    .filter((key) => !key.startsWith(RELEASES_PREFIX) && !everRecorded.has(key) && !deleted.has(key))
    .sort();

  const steps = orderSteps(input.app, uploads, [...copies.values()], input.entries);
  const note = switchNote(input.app, steps, input.entries ?? {});
  return {
    app: input.app,
    releaseKey: `${RELEASES_PREFIX}${name}.json`,
    release,
    steps,
    unchanged,
    excluded: excluded.sort((a, b) => (a.path < b.path ? -1 : 1)),
    deletions,
    unrecordedDeletions,
    expiredReleases: expired.map((r) => r.key),
    unknown,
    invalidationPaths: invalidationPathsFor(uploads, input.routes),
    ...(releases[0] ? { live: releases[0].key } : {}),
    entriesNotInBucket: files.filter((f) => f.kind === 'entry' && !storedByKey.has(f.path)).map((f) => f.path),
    entryEtags: entryEtagsOf(files, input.stored),
    ...(note ? { switchNote: note } : {}),
    ...(input.entries ? { entries: input.entries } : {}),
  };
}

/** Checks a release record read from the bucket; throws naming the key when it is not one. */
export function parseReleaseRecord(key: string, text: string): ReleaseRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${key} is not JSON: not a release record of the deploy command.`);
  }
  const record = raw as Partial<ReleaseRecord> | null;
  const fileOk = (f: unknown) => {
    const file = f as Partial<ReleaseFile> | null;
    return (
      typeof file?.path === 'string' &&
      typeof file.md5 === 'string' &&
      typeof file.size === 'number' &&
      (file.kind === 'hashed' || file.kind === 'companion' || file.kind === 'entry') &&
      typeof file.contentType === 'string' &&
      typeof file.cacheControl === 'string'
    );
  };
  const rollbackOk = (r: unknown) => {
    const rollback = r as Partial<NonNullable<ReleaseRecord['rollback']>> | null | undefined;
    return rollback === undefined || (typeof rollback?.from === 'string' && typeof rollback.to === 'string');
  };
  if (
    record?.format !== 1 ||
    typeof record.app !== 'string' ||
    typeof record.id !== 'string' ||
    typeof record.createdAt !== 'string' ||
    !Array.isArray(record.files) ||
    !record.files.every(fileOk) ||
    !rollbackOk(record.rollback)
  ) {
    throw new Error(`${key} is not a release record the deploy command understands (format 1).`);
  }
  return record as ReleaseRecord;
}
