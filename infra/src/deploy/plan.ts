/**
 * The deploy planner: pure. From an app's build (paths, sizes, MD5s), what its bucket holds now
 * and the release records found there, it decides what to upload and in which order, what is
 * already there and identical, what to delete, and which paths to invalidate. infra/README.md
 * ("Deploy command") explains the rules; infra/test/deploy-plan.test.ts checks them.
 *
 * Order: hashed files first, then their companions and the other non-entry files, then the entry
 * files that name them — for the shell `config.json`, `routes.json`, then the pages; for a remote
 * its pages, `remoteEntry.js`, and `mf-manifest.json` last of all (the file the shell reads first).
 * A page that reads an entry file uploaded so far finds every file it names already there.
 *
 * Releases: every deploy ends by writing a record of its files (`_releases/<time>-<id>.json`).
 * A hashed file (or companion) is deleted only when a record older than the last `keep` releases
 * (the new one included) lists it and none of the kept ones does: a tab opened on the previous
 * release keeps finding its chunks. A file no record lists is never deleted (an older, unrecorded
 * release may still be in use), nor is an entry file.
 */
import { cacheControlOf, contentTypeOf, exclusionOf, isHashed, kindOf } from './files';
import type { AppName, FileKind } from './files';

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
}

export interface ReleaseFile {
  path: string;
  size: number;
  md5: string;
  kind: FileKind;
  contentType: string;
  cacheControl: string;
}

/** What `_releases/<time>-<id>.json` holds. */
export interface ReleaseRecord {
  format: 1;
  app: AppName;
  id: string;
  /** ISO time of the deploy. */
  createdAt: string;
  files: ReleaseFile[];
}

export interface StoredRelease {
  /** Relative key, `_releases/…json`. */
  key: string;
  record: ReleaseRecord;
}

/** The part of the shell's routes.json that names viewer paths (infra/src/hosting/shell-routes.ts). */
export interface RoutedPaths {
  pages: Record<string, string>;
  appPaths: string[];
  app: string;
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
}

export interface UploadStep {
  name: string;
  /** Whether the step's uploads may run at once (bounded) or one after another, in order. */
  parallel: boolean;
  uploads: ReleaseFile[];
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
  /** Keys of hashed files (and companions) that only releases past `keep` list. */
  deletions: string[];
  /** Records of the releases past `keep`, deleted after their files. */
  expiredReleases: string[];
  /** Keys in the bucket no record lists: kept. */
  unknown: string[];
  /** CloudFront paths: the changed entry files and the viewer paths that serve them. */
  invalidationPaths: string[];
}

export const RELEASES_PREFIX = '_releases/';

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

function isPage(path: string): boolean {
  return path.endsWith('.html');
}

/** The steps an app's release is uploaded in. */
function orderSteps(app: AppName, uploads: ReleaseFile[]): UploadStep[] {
  const byPath = (a: ReleaseFile, b: ReleaseFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const take = (test: (f: ReleaseFile) => boolean) => uploads.filter(test).sort(byPath);
  const special = app === 'shell' ? ['config.json', 'routes.json'] : ['remoteEntry.js', 'mf-manifest.json'];
  const steps: UploadStep[] = [
    { name: 'hashed files', parallel: true, uploads: take((f) => f.kind === 'hashed') },
    { name: 'companion files', parallel: true, uploads: take((f) => f.kind === 'companion') },
    { name: 'other entry files', parallel: true, uploads: take((f) => f.kind === 'entry' && !isPage(f.path) && !special.includes(f.path)) },
  ];
  const one = (path: string): UploadStep => ({ name: path, parallel: false, uploads: take((f) => f.path === path) });
  if (app === 'shell') {
    steps.push(one('config.json'), one('routes.json'), { name: 'pages', parallel: true, uploads: take((f) => f.kind === 'entry' && isPage(f.path)) });
  } else {
    steps.push({ name: 'pages', parallel: true, uploads: take((f) => f.kind === 'entry' && isPage(f.path)) }, one('remoteEntry.js'), one('mf-manifest.json'));
  }
  return steps.filter((s) => s.uploads.length > 0);
}

/** The viewer paths to invalidate for the entry files uploaded. */
function invalidationPathsFor(changed: ReleaseFile[], routes: RoutedPaths | undefined): string[] {
  const paths = new Set<string>();
  const changedPaths = new Set(changed.filter((f) => f.kind === 'entry').map((f) => f.path));
  for (const path of changedPaths) {
    paths.add(`/${encodeURI(path)}`);
    // The distribution's default root object: `/` is cached apart from `/index.html`.
    if (path === 'index.html') paths.add('/');
  }
  if (routes) {
    for (const [route, page] of Object.entries(routes.pages)) if (changedPaths.has(page)) paths.add(encodeURI(route));
    if (changedPaths.has(routes.app)) for (const route of routes.appPaths) paths.add(encodeURI(route));
  }
  return [...paths].sort();
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
  const foreign = input.releases.find((r) => r.record.app !== input.app);
  if (foreign) problems.push(`the target holds releases of ${foreign.record.app} (${foreign.key}), not of ${input.app}: is it the right bucket?`);
  if (problems.length > 0) throw new PlanError(problems);

  const hashedPaths = new Set(shipped.filter((f) => isHashed(f.path)).map((f) => f.path));
  const files: ReleaseFile[] = shipped
    .map((f) => {
      const kind = kindOf(f.path, hashedPaths);
      return { path: f.path, size: f.size, md5: f.md5, kind, contentType: contentTypeOf(f.path), cacheControl: cacheControlOf(kind) };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));

  // Newest first: a release record's name starts with its time.
  const releases = [...input.releases].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
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

  const kept = releases.slice(0, input.keep - 1);
  const expired = releases.slice(input.keep - 1);
  const keptPaths = new Set([...files, ...kept.flatMap((r) => r.record.files)].map((f) => f.path));
  const expiredPaths = new Set(
    expired
      .flatMap((r) => r.record.files)
      .filter((f) => f.kind !== 'entry')
      .map((f) => f.path),
  );
  const deletions = input.stored
    .map((o) => o.key)
    .filter((key) => expiredPaths.has(key) && !keptPaths.has(key))
    .sort();
  const everRecorded = new Set([...keptPaths, ...releases.flatMap((r) => r.record.files.map((f) => f.path))]);
  const unknown = input.stored
    .map((o) => o.key)
    .filter((key) => !key.startsWith(RELEASES_PREFIX) && !everRecorded.has(key))
    .sort();

  return {
    app: input.app,
    releaseKey: `${RELEASES_PREFIX}${name}.json`,
    release,
    steps: orderSteps(input.app, uploads),
    unchanged,
    excluded: excluded.sort((a, b) => (a.path < b.path ? -1 : 1)),
    deletions,
    expiredReleases: expired.map((r) => r.key),
    unknown,
    invalidationPaths: invalidationPathsFor(uploads, input.routes),
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
  if (
    record?.format !== 1 ||
    typeof record.app !== 'string' ||
    typeof record.id !== 'string' ||
    typeof record.createdAt !== 'string' ||
    !Array.isArray(record.files) ||
    !record.files.every(fileOk)
  ) {
    throw new Error(`${key} is not a release record the deploy command understands (format 1).`);
  }
  return record as ReleaseRecord;
}
