// `npm run report [-- <path>]`: real-user metrics and upload outcomes (docs/monitoring.md#report)
// from the sandbox's analytics sink (its sandbox.db: a data dir, default .sandbox-data or
// SANDBOX_DATA_DIR, or the .db file) or from a directory of Firehose output files (gzipped JSON
// records, read recursively). Prints p75 of each vital per route, the batches' outcomes and the
// client errors. The aggregation is scripts/report-events.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { aggregate, formatReport, monitoringEvents, splitJsonObjects } from './report-events.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The sink's stored events (sandbox/src/db.ts: monitoring events are whole JSON in `data`). */
export function readSandboxDb(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT data FROM events WHERE data IS NOT NULL AND name NOT IN ('imageUpload', 'uploadFailure') ORDER BY id").all();
    return splitJsonObjects(rows.map((row) => row.data).join('\n'));
  } catch (error) {
    throw new Error(`${file} has no monitoring events table (start the sandbox once to migrate it): ${error.message}`, { cause: error });
  } finally {
    db.close();
  }
}

/**
 * Every Firehose output file under `dir` (gzip, or JSON text as a copy gunzipped by hand), as
 * JSON objects; other files (a database, a log) are passed over.
 */
export function readFirehoseDir(dir) {
  const objects = [];
  let unreadable = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = fs.readFileSync(path.join(entry.parentPath, entry.name));
    const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
    let text;
    try {
      text = (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
    } catch {
      unreadable++;
      continue;
    }
    if (!text.trimStart().startsWith('{')) continue;
    const read = splitJsonObjects(text);
    objects.push(...read.objects);
    unreadable += read.unreadable;
  }
  return { objects, unreadable };
}

/** Where to read: a .db file, a data dir holding sandbox.db, or a directory of Firehose files. */
export function sourceOf(arg, env = process.env) {
  const target = path.resolve(arg ?? env.SANDBOX_DATA_DIR ?? path.join(REPO, '.sandbox-data'));
  if (!fs.existsSync(target)) throw new Error(`${target} does not exist`);
  if (fs.statSync(target).isFile()) return { kind: 'db', file: target };
  const db = path.join(target, 'sandbox.db');
  return fs.existsSync(db) ? { kind: 'db', file: db } : { kind: 'firehose', dir: target };
}

async function main(argv) {
  const args = argv.filter((a) => a !== '--');
  if (args.includes('--help') || args.length > 1) {
    console.log('usage: npm run report [-- <sandbox data dir | sandbox.db | directory of Firehose output files>]');
    return args.includes('--help') ? 0 : 2;
  }
  const source = sourceOf(args[0]);
  const read = source.kind === 'db' ? readSandboxDb(source.file) : readFirehoseDir(source.dir);
  const { events, malformed } = monitoringEvents(read.objects);
  const where = path.relative(process.cwd(), source.kind === 'db' ? source.file : source.dir) || '.';
  console.log(formatReport(aggregate(events), { source: `${where} (${events.length} events)`, malformed, unreadable: read.unreadable }));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error) => {
      console.error(`report: ${error.message}`);
      process.exitCode = 1;
    },
  );
}
