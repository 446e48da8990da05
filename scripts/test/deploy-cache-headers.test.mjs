// The deploy command (infra/src/deploy/files.ts) must give every file the Cache-Control the local
// production server gives it (static-server.mjs `cacheControlFor`): checked on every file of the
// three builds when they exist, and on names of each kind.
import fs from 'node:fs';
import path from 'node:path';
import { cacheControlFor } from '../static-server.mjs';
import { cacheControlOf, exclusionOf, isHashed, kindOf } from '../../infra/src/deploy/files.ts';

const repo = path.resolve(__dirname, '..', '..');

function buildFiles(app) {
  const dir = path.join(repo, app, 'dist');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

const NAMES = [
  'index.html',
  'remoteEntry.js',
  'main.js',
  'mf-manifest.json',
  'routes.json',
  'config.json',
  'favicon.svg',
  'badges/app-store.svg',
  '325.e8d85c681d.js',
  '325.e8d85c681d.js.LICENSE.txt',
  'main.deef52792e.css',
  '__federation_expose_Uploader.51af695600.js',
  'assets/photo.0123456789.webp',
];

test.each(['shell', 'auth-remote', 'uploader-remote'])('the deploy and the local server agree on Cache-Control for %s’s build', (app) => {
  const files = [...buildFiles(app), ...NAMES].filter((file) => !exclusionOf(file));
  const hashed = new Set(files.filter(isHashed));
  for (const file of files) {
    expect([file, cacheControlOf(kindOf(file, hashed))]).toEqual([file, cacheControlFor(`/${file}`)]);
  }
});
