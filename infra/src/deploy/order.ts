/**
 * The order a release's files are written in (a deploy's: plan.ts; a rollback's: rollback-plan.ts)
 * and what switches the site from one release to the other.
 *
 * Every hashed file (and its companions) goes up before any entry file, so whatever entry file a
 * browser reads names only files already there; then the entry files' copies (for a rollback);
 * then the entry files, the files that name the others:
 *
 * - **A remote**: the shell reads it through its `mf-manifest.json` (the runtime config's
 *   `remotes.*` name the manifests), which names the entry script in `metaData.remoteEntry`. A
 *   build whose manifest names a content-hashed copy (`remoteEntry.<10 hex>.js`, uploaded with the
 *   hashed files) switches in one write: the manifest's, last of all. Its other entry files go
 *   before it: its own page and scripts, and `remoteEntry.js` — unless the live manifest names
 *   `remoteEntry.js` (a release built before the hashed copy): replacing it first would run the
 *   new code under the live manifest, past the shell's checks of it, so it goes right after the
 *   manifest instead. When both manifests name `remoteEntry.js` no order switches in one write:
 *   the manifest goes first (the shell checks the new manifest and runs the previous code, which
 *   fitted it), and the plan says the switch is not atomic (`switchNote`).
 * - **The shell**: its other entry files (images, `policy.css`), `config.json`, `routes.json`,
 *   the pages, and `federation-host.json` last — what the shell provides remotes, read by their
 *   deploys, says so only once every page is the new shell's. Each page is written whole, and
 *   names hashed files of its own release, all in place; the unhashed files pages share are
 *   written before the pages.
 */
import { HOST_FILE } from '@trailsense/webpack-config/federation-check';
import { isHashed } from './files';
import type { AppName } from './files';
import type { ReleaseFile, RoutedPaths, UploadStep } from './release-files';

/** A remote's manifest: the file the shell reads first. */
export const MANIFEST = 'mf-manifest.json';
/** A remote's unhashed entry script, for runtime configs and manifests that name it. */
export const PLAIN_ENTRY = 'remoteEntry.js';
export { HOST_FILE };

/** What a remote's manifests name as the entry script: keys beside the manifest. */
export interface RemoteEntries {
  /** The live `mf-manifest.json`'s: undefined when the bucket has none, null when it cannot be read. */
  live?: string | null;
  /** The release's own manifest's (the one being written). */
  next?: string;
}

/** The entry script an mf-manifest.json names (`metaData.remoteEntry`: `path`/`name`), as a key beside the manifest; undefined when it names none. */
export function manifestEntry(manifest: unknown): string | undefined {
  const entry = (manifest as { metaData?: { remoteEntry?: { name?: unknown; path?: unknown } } } | null)?.metaData?.remoteEntry;
  if (typeof entry?.name !== 'string' || entry.name === '') return undefined;
  const dir = typeof entry.path === 'string' ? entry.path.replace(/^\/+|\/+$/g, '') : '';
  return dir ? `${dir}/${entry.name}` : entry.name;
}

/** `manifestEntry` of a manifest's text; null when it is not JSON. */
export function manifestEntryOfText(text: string): string | null | undefined {
  try {
    return manifestEntry(JSON.parse(text));
  } catch {
    return null;
  }
}

/** What the live mf-manifest.json names (RemoteEntries.live), from its text: undefined when there is none, null when it names nothing readable. */
export function liveEntryOf(text: string | undefined): RemoteEntries['live'] {
  return text === undefined ? undefined : (manifestEntryOfText(text) ?? null);
}

function isPage(path: string): boolean {
  return path.endsWith('.html');
}

const byPath = (a: ReleaseFile, b: ReleaseFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** A remote's unhashed entry scripts: remoteEntry.js and any unhashed script a manifest names. */
function entryScripts(entries: RemoteEntries): Set<string> {
  const scripts = new Set([PLAIN_ENTRY]);
  for (const named of [entries.live, entries.next]) if (typeof named === 'string' && !isHashed(named)) scripts.add(named);
  return scripts;
}

/** Whether the live manifest names `script` (unknown: it is taken to name remoteEntry.js, as a release built before the hashed copy does). */
function namedByLive(script: string, entries: RemoteEntries): boolean {
  return entries.live === null ? script === PLAIN_ENTRY : entries.live === script;
}

/**
 * The steps an app's release is uploaded in (a rollback's: its entry files alone). The entry
 * files' copies go up before any entry file, so a live entry file always has its copy.
 */
export function orderSteps(app: AppName, uploads: ReleaseFile[], copies: ReleaseFile[] = [], entries: RemoteEntries = {}): UploadStep[] {
  const take = (test: (f: ReleaseFile) => boolean) => uploads.filter(test).sort(byPath);
  const entry = (f: ReleaseFile) => f.kind === 'entry';
  const scripts = entryScripts(entries);
  const special = app === 'shell' ? new Set(['config.json', 'routes.json', HOST_FILE]) : new Set([MANIFEST, ...scripts]);
  const steps: UploadStep[] = [
    { name: 'hashed files', parallel: true, uploads: take((f) => f.kind === 'hashed') },
    { name: 'companion files', parallel: true, uploads: take((f) => f.kind === 'companion') },
    { name: 'entry file copies', parallel: true, uploads: [...copies].sort((a, b) => (a.md5 < b.md5 ? -1 : 1)), copies: true },
    { name: 'other entry files', parallel: true, uploads: take((f) => entry(f) && !isPage(f.path) && !special.has(f.path)) },
  ];
  const one = (path: string): UploadStep => ({ name: path, parallel: false, uploads: take((f) => f.path === path) });
  const pages: UploadStep = { name: 'pages', parallel: true, uploads: take((f) => entry(f) && isPage(f.path)) };
  if (app === 'shell') {
    steps.push(one('config.json'), one('routes.json'), pages, one(HOST_FILE));
  } else {
    const sorted = [...scripts].sort();
    steps.push(pages, ...sorted.filter((s) => !namedByLive(s, entries)).map(one), one(MANIFEST), ...sorted.filter((s) => namedByLive(s, entries)).map(one));
  }
  return steps.filter((s) => s.uploads.length > 0);
}

/**
 * Why a remote's steps do not switch it in one write, or undefined when they do: the manifest and
 * the unhashed script it names are both replaced, the script after the manifest (the live manifest
 * names it too).
 */
export function switchNote(app: AppName, steps: readonly UploadStep[], entries: RemoteEntries): string | undefined {
  if (app === 'shell' || entries.next === undefined || isHashed(entries.next)) return undefined;
  const at = (path: string) => steps.findIndex((s) => !s.copies && s.uploads.some((f) => f.path === path));
  const manifest = at(MANIFEST);
  const script = at(entries.next);
  if (manifest < 0 || script < 0 || script < manifest) return undefined;
  return (
    `the switch is not atomic: this release's ${MANIFEST} names ${entries.next}, not a content-hashed copy, and so does the live one, ` +
    `so ${MANIFEST} is replaced first and ${entries.next} right after; between the two writes the shell reads the new manifest and runs the previous release's code. ` +
    `A build whose manifest names remoteEntry.<hash>.js (webpack/index.js) switches in one write.`
  );
}

/** The viewer paths to invalidate for the entry files uploaded. */
export function invalidationPathsFor(changed: ReleaseFile[], routes: RoutedPaths | undefined): string[] {
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
