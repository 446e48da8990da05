/**
 * Builds and bucket states for the planner's tests (deploy-plan.test.ts, deploy-rollback-plan.test.ts,
 * deploy-execute.test.ts): a remote's and the shell's build as file lists with made-up MD5s, a plan's
 * input, and what a deploy of a plan leaves in the bucket.
 */
import { entryCopyKey } from '../../src/deploy/plan';
import type { DeployPlan, LocalFile, PlanInput, StoredRelease } from '../../src/deploy/plan';

export const NOW = new Date('2026-05-04T10:21:33.123Z');

export const file = (path: string, md5 = `md5-of-${path}`): LocalFile => ({ path, size: 100, md5 });

export const REMOTE_BUILD = [
  '114.5436204ded.js',
  '325.e8d85c681d.js',
  '325.e8d85c681d.js.LICENSE.txt',
  '325.e8d85c681d.js.map',
  '325.e8d85c681d.js.br',
  '325.e8d85c681d.js.gz',
  '853.6a29b46991.css',
  '__federation_expose_Uploader.51af695600.js',
  'index.html',
  'main.js',
  'mf-manifest.json',
  'mf-stats.json',
  'remoteEntry.js',
  'remoteEntry.js.br',
  '.build-stamp',
].map((p) => file(p));

export const SHELL_BUILD = [
  '105.5438cbda79.js',
  'main.eeddb1335a.js',
  'main.deef52792e.css',
  '25.b3c45e448b.js.LICENSE.txt',
  '25.b3c45e448b.js',
  'index.html',
  'about.html',
  'app.html',
  '404.html',
  'routes.json',
  'config.json',
  'favicon.svg',
  'badges/app-store.svg',
  'policy.css',
  'privacypolicy.html',
].map((p) => file(p));

export const ROUTES = { pages: { '/': 'index.html', '/about': 'about.html' }, appPaths: ['/login', '/uploader'], app: 'app.html' };

export function input(extra: Partial<PlanInput> = {}): PlanInput {
  return { app: 'uploader-remote', files: REMOTE_BUILD, stored: [], releases: [], keep: 2, releaseId: 'abc123', now: NOW, ...extra };
}

/** What a previous deploy of `files` left: the objects (its entry files' copies too) and its record. */
export function deployed(plan: DeployPlan, lastModified?: Date) {
  const at = lastModified ? { lastModified } : {};
  const copies = plan.release.files.filter((f) => f.kind === 'entry').map((f) => ({ key: entryCopyKey(f.md5), etag: f.md5, size: f.size, ...at }));
  const record = { key: plan.releaseKey, etag: `md5-of-${plan.releaseKey}`, size: 1, ...at };
  const objects = [...plan.release.files.map((f) => ({ key: f.path, etag: f.md5, size: f.size, ...at })), ...copies, record];
  const stored = [...new Map(objects.map((o) => [o.key, o])).values()];
  const release: StoredRelease = { key: plan.releaseKey, record: plan.release };
  return { stored, release };
}
