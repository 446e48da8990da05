// `npm run report`: the pure aggregation (scripts/report-events.mjs) and its two readers
// (scripts/report.mjs) over a directory of Firehose files and a sandbox database made here.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import { aggregate, formatBytes, formatReport, monitoringEvents, percentile, safeCell, safeText, splitJsonObjects } from '../report-events.mjs';
import { readFirehoseDir, readSandboxDb, sourceOf } from '../report.mjs';

const vital = (route, metric, value) => ({ name: 'webVital', metric, value, rating: 'good', route, navigationType: 'navigate' });
const NO_FAILURES = { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 };
const batch = (fields) => ({
  name: 'batchOutcome',
  photos: 10,
  bytes: 30_000_000,
  durationMs: 60_000,
  goodputBytesPerSecond: 500_000,
  retries: 0,
  failures: NO_FAILURES,
  hiddenMs: 0,
  skippedDuplicates: 0,
  stopped: false,
  ...fields,
});

let dir;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-report-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('splitJsonObjects', () => {
  it('reads newline-delimited and concatenated records, braces inside strings included', () => {
    const text = '{"a":1}\n{"b":"}{"}{"c":{"d":"\\"}"}}\n';
    expect(splitJsonObjects(text)).toEqual({ objects: [{ a: 1 }, { b: '}{' }, { c: { d: '"}' } }], unreadable: 0 });
  });

  it('counts a broken or cut record as unreadable and goes on', () => {
    expect(splitJsonObjects('{"a":1,}{"b":2}{"c":')).toEqual({ objects: [{ b: 2 }], unreadable: 2 });
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    expect(percentile([400, 100, 300, 200], 0.75)).toBe(300);
    expect(percentile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(percentile([7], 0.75)).toBe(7);
    expect(percentile([], 0.75)).toBeNull();
  });
});

describe('monitoringEvents', () => {
  it('keeps the valid monitoring events, passes over the upload events and counts the rest as malformed', () => {
    const values = [vital('/', 'LCP', 1), { name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 1 }, { name: 'webVital', metric: 'LCP' }, 'text'];
    expect(monitoringEvents(values)).toEqual({ events: [vital('/', 'LCP', 1)], malformed: 2 });
  });
});

describe('aggregate', () => {
  it('gives p75 of each vital per route and how it was reached, with its samples', () => {
    const clicked = (route, metric, value) => ({ ...vital(route, metric, value), navigationType: 'soft-navigation' });
    const events = [100, 200, 300, 400]
      .map((v) => vital('/login', 'LCP', v))
      .concat([
        vital('/login', 'CLS', 0.1),
        vital('/', 'TTFB', 50),
        clicked('/login', 'LCP', 90),
        { ...vital('/login', 'LCP', 5000), navigationType: 'reload' },
      ]);
    const { vitals } = aggregate(events);
    const none = { p75: null, samples: 0 };
    expect(vitals).toEqual([
      { route: '/', reached: 'load', LCP: none, INP: none, CLS: none, TTFB: { p75: 50, samples: 1 } },
      { route: '/login', reached: 'click', LCP: { p75: 90, samples: 1 }, INP: none, CLS: none, TTFB: none },
      { route: '/login', reached: 'load', LCP: { p75: 400, samples: 5 }, INP: none, CLS: { p75: 0.1, samples: 1 }, TTFB: none },
    ]);
  });

  it('gives the batches’ median goodput (batches that sent something) and failure rate (photos given up of those tried)', () => {
    const { batches } = aggregate([
      batch({ goodputBytesPerSecond: 100_000 }),
      batch({ goodputBytesPerSecond: 300_000, failures: { ...NO_FAILURES, upload: 2, stalled: 1 }, retries: 5 }),
      batch({ goodputBytesPerSecond: 900_000, hiddenMs: 30_000, skippedDuplicates: 4, smallerCopies: true, copies: 10, bytesSaved: 27_000_000 }),
      batch({ photos: 0, bytes: 0, goodputBytesPerSecond: 0, stopped: true, failures: { ...NO_FAILURES, limit: 3 } }),
    ]);
    expect(batches).toEqual({
      count: 4,
      stopped: 1,
      withFailures: 2,
      photos: 30,
      bytes: 90_000_000,
      medianGoodput: 300_000,
      failureRate: 2 / 32,
      failures: { upload: 2, stalled: 1, limit: 3, unavailable: 0, unreadable: 0 },
      retries: 5,
      skippedDuplicates: 4,
      withCopies: 1,
      copies: 10,
      bytesSaved: 27_000_000,
      hiddenShare: 30_000 / 240_000,
    });
  });

  it('counts client errors per route with those the gate held back, most frequent first', () => {
    const error = (message, suppressed = 0, release = '0.1.0', route = '/') => ({ name: 'clientError', kind: 'error', message, route, release, suppressed });
    const { errors } = aggregate([error('a'), error('b', 3), error('a', 0, '0.1.1'), error('a', 0, '0.1.1', '/uploader')]);
    expect(errors.map((e) => [e.message, e.route, e.count, e.releases])).toEqual([
      ['b', '/', 4, ['0.1.0']],
      ['a', '/', 2, ['0.1.0', '0.1.1']],
      ['a', '/uploader', 1, ['0.1.1']],
    ]);
  });

  it('has nothing to say of no events', () => {
    const report = aggregate([]);
    expect(report.batches).toMatchObject({ count: 0, medianGoodput: null, failureRate: null });
    expect(formatReport(report, { source: 'x' })).toContain('(no vitals recorded)');
  });
});

describe('formatBytes', () => {
  it('uses the largest unit that keeps the figure at 1 or more', () => {
    expect([512, 48_200, 3_100_000, 1_200_000_000].map(formatBytes)).toEqual(['512 B', '48.2 kB', '3.1 MB', '1.20 GB']);
  });
});

describe('formatReport', () => {
  it('prints a row per route and the batches’ figures', () => {
    const text = formatReport(aggregate([vital('/login', 'LCP', 2500.4), vital('/login', 'CLS', 0.0123), batch({})]), { source: 'here', malformed: 1 });
    expect(text).toContain('| /login | load | 2500 (1) | – | 0.012 (1) | – |');
    expect(text).toContain('Smaller copies: 0 of 1 batches sent them; 0 photos as copies, 0 B spared.');
    expect(text).toContain('| 1 | 0 | 0 | 10 | 30.0 MB | 500.0 kB/s | 0.0 % | 0 | 0 | 0.0 % |');
    expect(text).toContain('1 records skipped');
  });
});

describe('safeCell', () => {
  it('prints no escape code, control character or line break, and no | that would end a cell', () => {
    expect(safeCell('a\u001b[2Jb\nc|d\r\ne\u2028f\u0085g')).toBe('a\ufffd[2Jb\ufffdc\\|d\ufffd\ufffde\ufffdf\ufffdg');
  });

  it('escapes a backslash, so text ending in one cannot unescape the next |', () => {
    expect(safeCell('a\\|b\\')).toBe('a\\\\\\|b\\\\');
    // Read back as a Markdown table reader splits cells (an escaped pair, then an escaped |): one cell.
    const cells = `| ${safeCell('x\\')} | ${safeCell('y\\|z')} |`
      .match(/(?:\\.|[^|\\])+/g)
      .map((c) => c.trim())
      .filter(Boolean);
    expect(cells).toHaveLength(2);
  });

  it('makes the C1 CSI, DEL, NUL and the bidirectional overrides harmless, and folds runs of spaces', () => {
    expect(safeText('\u009b31m\u007f\u0000 \u202eevil\u202c\u2066x\u2069    y')).toBe('\ufffd31m\ufffd\ufffd \ufffdevil\ufffd\ufffdx\ufffd y');
    // Text from any script, accents and emoji are kept.
    expect(safeText('Ошибка: ¿qué? ✓ 🐄')).toBe('Ошибка: ¿qué? ✓ 🐄');
  });

  it('the report of events that lie (stored before the sink refused them) is one row per error, escapes and all made harmless', () => {
    const lie = { name: 'clientError', kind: 'error', message: 'x\n| forged | row |\u001b[2J', route: '/', release: '1\u001b[31m', suppressed: 0 };
    const text = formatReport(aggregate([lie]), { source: 'old sink' });
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const rows = text.split('\n').filter((l) => l.startsWith('| 1 |'));
    expect(rows).toEqual(['| 1 | error | / |  | x\ufffd\\| forged \\| row \\|\ufffd[2J | 1\ufffd[31m |']);
  });
});

describe('the report of whatever is stored', () => {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
  const lies = {
    name: 'clientError',
    kind: 'error',
    message: 'x\u001b]0;owned\u0007\n| 999 | error | / | | forged | 1.0 |\r\u009b2J',
    module: 'a|b\\',
    route: '/',
    release: '1.0\u202e',
    suppressed: 0,
  };

  it('an event stored before the route refused such text is skipped by the readers, counted, and nothing of it reaches the terminal', () => {
    const file = path.join(dir, 'events', 'stream-old');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, gzipSync(`${JSON.stringify(lies)}\n${JSON.stringify(vital('/', 'LCP', 100))}\n`));
    const read = readFirehoseDir(dir);
    const { events, malformed } = monitoringEvents(read.objects);
    expect(malformed).toBe(1);
    const text = formatReport(aggregate(events), { source: `${dir}\u001b[2J`, malformed, unreadable: read.unreadable });
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('(1 records skipped: malformed or unreadable)');
    expect(text).not.toContain('forged');
  });

  it('formatReport given such an event anyway prints it on one row, every cell escaped', () => {
    const text = formatReport(aggregate([lies]), { source: 'a file from elsewhere' });
    expect(text).not.toMatch(UNSAFE);
    const rows = text.split('\n').filter((l) => l.startsWith('| 1 |'));
    expect(rows).toHaveLength(1);
    expect(text.split('\n').filter((l) => l.includes('forged'))).toEqual(rows);
    // Six cells: no | left unescaped in what the event said.
    expect(rows[0].match(/(?:\\.|[^|\\])+/g).map((c) => c.trim())).toHaveLength(6);
    expect(rows[0]).toContain('| a\\|b\\\\ |');
  });

  it('reads the collection route’s records (several events a record, one a line) next to the browser’s (no delimiter)', () => {
    const record = [vital('/', 'LCP', 1), vital('/login', 'INP', 2), vital('/uploader', 'CLS', 0.1)].map((e) => `${JSON.stringify(e)}\n`).join('');
    fs.writeFileSync(
      path.join(dir, 'stream-1'),
      gzipSync(`${record}${JSON.stringify(batch({}))}${JSON.stringify({ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 1 })}${record}`),
    );
    const read = readFirehoseDir(dir);
    expect(read.unreadable).toBe(0);
    expect(monitoringEvents(read.objects)).toMatchObject({ malformed: 0 });
    expect(read.objects.map((o) => o.name)).toEqual(['webVital', 'webVital', 'webVital', 'batchOutcome', 'imageUpload', 'webVital', 'webVital', 'webVital']);
  });
});

describe('readFirehoseDir', () => {
  it('reads gzipped and plain record files in sub-folders, and passes over files that are not records', () => {
    fs.mkdirSync(path.join(dir, 'events/2026/11/26'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'events/2026/11/26/stream-1'), gzipSync(`${JSON.stringify(vital('/', 'LCP', 1))}${JSON.stringify(batch({}))}`));
    fs.writeFileSync(path.join(dir, 'events/2026/11/26/stream-2.json'), `${JSON.stringify(vital('/', 'TTFB', 2))}\n`);
    fs.writeFileSync(path.join(dir, 'notes.log'), 'started {"not": "an event"');
    const read = readFirehoseDir(dir);
    expect(read.objects.map((o) => o.name)).toEqual(['webVital', 'batchOutcome', 'webVital']);
    expect(read.unreadable).toBe(0);
  });
});

describe('readSandboxDb and sourceOf', () => {
  it('reads the monitoring events the sink stored whole, and finds sandbox.db in a data dir', () => {
    const file = path.join(dir, 'sandbox.db');
    const db = new DatabaseSync(file);
    db.exec(
      'CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, ranchid TEXT, key TEXT, upload_count INTEGER, failure_count INTEGER, data TEXT, received_at TEXT NOT NULL)',
    );
    const insert = db.prepare('INSERT INTO events (name, ranchid, data, received_at) VALUES (?, ?, ?, ?)');
    insert.run('imageUpload', 'cedar-creek', null, 'now');
    insert.run('webVital', null, JSON.stringify(vital('/', 'INP', 80)), 'now');
    db.close();
    expect(sourceOf(dir)).toEqual({ kind: 'db', file });
    expect(sourceOf(file)).toEqual({ kind: 'db', file });
    expect(readSandboxDb(file)).toEqual({ objects: [vital('/', 'INP', 80)], unreadable: 0 });
    fs.mkdirSync(path.join(dir, 'firehose'));
    expect(sourceOf(path.join(dir, 'firehose'))).toEqual({ kind: 'firehose', dir: path.join(dir, 'firehose') });
    expect(() => sourceOf(path.join(dir, 'missing'))).toThrow(/does not exist/);
  });
});

describe('npm run report', () => {
  it('runs as the README says, on a directory of Firehose files, and prints the tables', () => {
    fs.mkdirSync(path.join(dir, 'events'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'events', 'stream-1'), gzipSync(`${JSON.stringify(vital('/login', 'LCP', 1234))}\n${JSON.stringify(batch({}))}\n`));
    const repo = path.resolve(__dirname, '..', '..');
    const out = execFileSync('npm', ['run', '--silent', 'report', '--', dir], { cwd: repo, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(out).toContain('| /login | load | 1234 (1) |');
    expect(out).toContain('Upload batches');
  });
});
