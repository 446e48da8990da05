/**
 * The shell build's `routes.json` (written by scripts/prerender.mjs after the webpack build): which
 * paths are prerendered pages, which are app routes (the bare app page), the 404 page, and the
 * hashes of the inline scripts its pages carry (for the Content-Security-Policy). The Shell stack
 * is generated from it (docs/architecture.md#prerendered-marketing-pages).
 */
import fs from 'node:fs';

export interface ShellRoutes {
  /** Route path (`/`, `/about`) → its prerendered page file (`index.html`, `about.html`). */
  pages: Record<string, string>;
  /** Paths the browser renders from the bare app page (`/login`, `/uploader`). */
  appPaths: string[];
  /** The bare app page (`app.html`). */
  app: string;
  /** The 404 page (`404.html`). */
  notFound: string;
  /** CSP hash sources (`'sha256-…'`) of the inline scripts the pages carry. */
  inlineScriptHashes: string[];
}

/** A route path: `/`, or `/` and segments without a trailing slash. */
const ROUTE_PATH = /^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/;
/** A page file at the build's top level. */
const PAGE_FILE = /^[A-Za-z0-9._-]+\.html$/;

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Checks routes.json's parsed content; throws naming the first field that is wrong. */
export function checkShellRoutes(raw: unknown, source = 'routes.json'): ShellRoutes {
  const fail = (message: string): never => {
    throw new Error(`${source}: ${message}`);
  };
  if (typeof raw !== 'object' || raw === null) return fail('not a JSON object.');
  const routes = raw as Record<string, unknown>;
  const pages = routes.pages;
  if (typeof pages !== 'object' || pages === null || Array.isArray(pages)) return fail('pages must map route paths to page files.');
  for (const [route, file] of Object.entries(pages as Record<string, unknown>)) {
    if (!ROUTE_PATH.test(route)) fail(`pages: ${JSON.stringify(route)} is not a route path.`);
    if (typeof file !== 'string' || !PAGE_FILE.test(file)) fail(`pages[${JSON.stringify(route)}] is not an .html file name.`);
  }
  if (!isStringArray(routes.appPaths) || routes.appPaths.some((p) => !ROUTE_PATH.test(p))) fail('appPaths must be a list of route paths.');
  for (const key of ['app', 'notFound'] as const) {
    const file = routes[key];
    if (typeof file !== 'string' || !PAGE_FILE.test(file)) fail(`${key} must be an .html file name.`);
  }
  if (!isStringArray(routes.inlineScriptHashes)) fail('lists no inlineScriptHashes (an older build): rebuild the shell with `npm run build -w shell`.');
  return {
    pages: { ...(pages as Record<string, string>) },
    appPaths: [...(routes.appPaths as string[])],
    app: routes.app as string,
    notFound: routes.notFound as string,
    inlineScriptHashes: [...(routes.inlineScriptHashes as string[])],
  };
}

/** Reads the shell build's routes.json; a missing build fails with what to run. */
export function loadShellRoutes(file: string): ShellRoutes {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new Error(
      `${file} does not exist: the Shell stack is generated from the shell's build (its routes and inline-script hashes). Run \`npm run build -w shell\` first.`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message}). Run \`npm run build -w shell\` again.`);
  }
  return checkShellRoutes(raw, file);
}
