// Checks the citations of docs/ (and infra/docs/) and the links between the Markdown pages: every
// `docs/<page>.md#<anchor>` or `infra/docs/<page>.md#<anchor>` in the repository's files (code comments, tests, READMEs) must name a
// page that exists and a heading on it, by GitHub's anchor rules; every relative link in a
// Markdown file (README.md, docs/*.md, sandbox/README.md, infra/README.md, …) must name a file or
// folder that exists, and, for a Markdown page with an anchor, a heading on it. Also refuses
// citations of the old notes that lived outside the repository. Prints each problem as
// `file:line: …` and exits 1 if any.
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
/** The anchors of a Markdown file (a path from the repository's root), or null when there is no such file. */
function anchorsOfFile(file) {
  if (!pages.has(file)) {
    const full = path.join(root, file);
    pages.set(file, fs.existsSync(full) && fs.statSync(full).isFile() ? anchorsOf(fs.readFileSync(full, 'utf8')) : null);
  }
  return pages.get(file);
}

const self = path
  .relative(root, fileURLToPath(import.meta.url))
  .split(path.sep)
  .join('/');
const problems = [];
let checked = 0;

/** `file` (from the root) must be a Markdown page with a heading whose anchor is `anchor`, when one is given. */
function check(where, file, anchor, shown) {
  checked++;
  const anchors = anchorsOfFile(file);
  if (anchors === null) problems.push(`${where}: ${shown} — there is no ${file}`);
  else if (anchor !== undefined && !anchors.has(anchor)) problems.push(`${where}: ${shown} — ${file} has no heading with the anchor #${anchor}`);
}

/** A relative link of a Markdown file: the file or folder must exist; a Markdown page's anchor must be a heading on it. */
function checkLink(where, from, target) {
  const [rawPath, anchor] = target.split('#');
  const file = rawPath === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURIComponent(rawPath)));
  if (file.startsWith('../')) return problems.push(`${where}: ${target} — leads outside the repository`);
  if (file.endsWith('.md')) return check(where, file, anchor || undefined, target);
  checked++;
  if (!fs.existsSync(path.join(root, file))) problems.push(`${where}: ${target} — there is no ${file}`);
}

const CITATION = /(?<![\w/.])((?:infra\/)?docs)\/([\w.-]+\.md)(?:#([\w-]+))?/g;
// A Markdown link's target (`[text](target)` or `[text](target "title")`); absolute URLs are not checked.
const MARKDOWN_LINK = /\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g;
const ABSOLUTE = /^(?:[a-z][\w+.-]*:|\/\/)/i;
// The notes that once sat beside the repository: nobody reading the code can follow them.
const OUTSIDE_NOTES = /\b(?:SPEC|DESIGN|STYLE)\.md\b/g;

for (const file of repositoryFiles()) {
  if (file === self) continue;
  const text = readText(file);
  if (text === null) continue;
  const markdown = file.endsWith('.md');
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const m of line.matchAll(CITATION)) check(where, `${m[1]}/${m[2]}`, m[3], m[0]);
    for (const m of line.matchAll(OUTSIDE_NOTES))
      problems.push(`${where}: ${m[0]} — cites a document outside the repository; cite a section of ${DOCS}/ instead`);
    if (!markdown) return;
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) fence = fence === null ? f[1] : f[1] === fence ? null : fence;
    if (fence !== null || f) return;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(MARKDOWN_LINK)) if (!ABSOLUTE.test(m[1])) checkLink(where, file, m[1]);
  });
}

const distinct = [...new Set(problems)];
if (distinct.length > 0) {
  console.error(`${distinct.length} problem${distinct.length === 1 ? '' : 's'} with documentation citations and links:`);
  for (const problem of distinct) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`${checked} documentation citations and links checked: every one names an existing file and heading.`);
