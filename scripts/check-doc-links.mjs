// Checks the citations of docs/: every `docs/<page>.md#<anchor>` in the repository's files (code
// comments, tests, READMEs) and every link between the docs pages must name a page that exists
// and a heading on it, by GitHub's anchor rules. Also refuses citations of the old notes that
// lived outside the repository. Prints each problem as `file:line: …` and exits 1 if any.
//
//   node scripts/check-doc-links.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = 'docs';

/** GitHub's anchor for a heading: inline markup dropped, lower case, punctuation dropped, spaces → hyphens. */
export function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text (headings outside fenced code; repeated ones get -1, -2, …). */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1];
      else if (f[1] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Files git knows of (tracked, or new and not ignored), text only. */
function repositoryFiles() {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
  return [...new Set(out.split('\0').filter(Boolean))].filter(
    (file) => !file.startsWith('node_modules/') && !file.endsWith('package-lock.json') && fs.existsSync(path.join(root, file)),
  );
}

function readText(file) {
  const buffer = fs.readFileSync(path.join(root, file));
  return buffer.includes(0) ? null : buffer.toString('utf8');
}

const pages = new Map();
/** The anchors of docs/<page>, or null when there is no such page. */
function anchorsOfPage(page) {
  if (!pages.has(page)) {
    const file = path.join(root, DOCS, page);
    pages.set(page, fs.existsSync(file) ? anchorsOf(fs.readFileSync(file, 'utf8')) : null);
  }
  return pages.get(page);
}

const self = path.relative(root, fileURLToPath(import.meta.url)).split(path.sep).join('/');
const problems = [];
let checked = 0;

function check(where, page, anchor, shown) {
  checked++;
  const anchors = anchorsOfPage(page);
  if (anchors === null) problems.push(`${where}: ${shown} — there is no ${DOCS}/${page}`);
  else if (anchor !== undefined && !anchors.has(anchor)) problems.push(`${where}: ${shown} — ${DOCS}/${page} has no heading with the anchor #${anchor}`);
}

const CITATION = /\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g;
// A markdown link inside docs/: to another page (`product.md#x`, `./product.md`) or this one (`#x`).
const RELATIVE_LINK = /\]\((?:\.\/)?(?:([\w.-]+\.md))?(?:#([\w-]+))?\)/g;
// The notes that once sat beside the repository: nobody reading the code can follow them.
const OUTSIDE_NOTES = /\b(?:SPEC|DESIGN|STYLE)\.md\b/g;

for (const file of repositoryFiles()) {
  if (file === self) continue;
  const text = readText(file);
  if (text === null) continue;
  const inDocs = file.startsWith(`${DOCS}/`) && !file.slice(DOCS.length + 1).includes('/');
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const m of line.matchAll(CITATION)) check(where, m[1], m[2], m[0]);
    for (const m of line.matchAll(OUTSIDE_NOTES)) problems.push(`${where}: ${m[0]} — cites a document outside the repository; cite a section of ${DOCS}/ instead`);
    if (!inDocs) return;
    for (const m of line.matchAll(RELATIVE_LINK)) {
      if (m[1] === undefined && m[2] === undefined) continue;
      check(where, m[1] ?? path.basename(file), m[2], m[0].slice(2, -1));
    }
  });
}

if (problems.length > 0) {
  console.error(`${problems.length} problem${problems.length === 1 ? '' : 's'} with documentation citations:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`${checked} documentation citations checked: every one names an existing page and heading.`);
