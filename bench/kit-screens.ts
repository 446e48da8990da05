// bench/kit-screens: every screen and state of the sign-in kit (@aws-amplify/ui-react's
// Authenticator) on /login, at 375 and 1280 px wide, as PNG screenshots, and a pixel-by-pixel
// comparison of two such captures: the kit's stylesheet may shrink only if no screen changes
// (docs/architecture.md#the-sign-in-kits-stylesheet).
// A capture runs the production builds, served as in production, against a freshly reset sandbox,
// in Chromium. Each screen is reached by the clicks a person makes, in a fresh browser context;
// before the full-page screenshot the pointer is parked in the corner (no hover), fonts are
// loaded, CSS animations and transitions are finished and infinite ones (a button's spinner)
// stopped, and the text caret hidden; focus stays where the clicks left it. Two captures of the
// same builds are identical. A capture also lists the kit's per-component sheets with a rule that
// matches an element of a captured screen (pseudo-classes ignored, so a hover or focus rule
// counts), against those auth-remote/src/features/login/sign-in-kit-styles.ts imports, and the
// CSS the /login route loads from auth-remote.
// The comparison: Chromium decodes both PNGs without colour conversion, and a pixel differs when
// any of its RGBA values does (no tolerance, no allowance for anti-aliasing); screens of different
// sizes differ by the pixels outside their overlap too. A diff-<screen>.png marks them in red.
//   npm run bench:kit-screens -- --before <dir>   captures <dir>/{shell,auth-remote,uploader-remote}
//                                                 (a saved copy of the builds), then this tree's
//                                                 builds (npm run build first), and compares
//   npm run bench:kit-screens -- capture <out> [--dist <dir>]
//   npm run bench:kit-screens -- compare <before-out> <after-out>
// --before writes test-results/kit-screens/{before,after}/. The fixed ports (3000-3002, the
// sandbox's 4100-4104) must be free. Prints tables; asserts nothing.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, expect, type Browser, type Page } from '@playwright/test';
import { startSandbox } from '../sandbox/src/index';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack, type DistDirs, type Stack } from '../e2e/support/servers';
import { accounts } from '../e2e/support/session';
import { repo } from './stack';
import { printTable } from './table';

const WIDTHS = [375, 1280] as const;
const OUT_ROOT = path.join(repo, 'test-results/kit-screens');
const KIT_SHEETS_DIR = path.join(repo, 'node_modules/@aws-amplify/ui-react/dist/styles');
const KIT_STYLES = path.join(repo, 'auth-remote/src/features/login/sign-in-kit-styles.ts');
/** The sandbox's Cognito gateway (config/local.json `auth.userPoolEndpoint`). */
const USER_POOL = 'http://localhost:4100/';

interface Screen {
  name: string;
  /** Served with `auth.signUpEnabled` on: the Sign In / Create Account tabs. */
  signUp: boolean;
  /** From a fresh /login with the kit drawn, to the state to capture. */
  reach(page: Page, width: number): Promise<void>;
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await button(page, 'Sign In').click();
}

/**
 * Signs in with the user pool's GetUser answered as if the email were unverified (the sandbox's
 * seeded accounts are verified): the kit then asks to verify a contact.
 */
async function verifyContact(page: Page): Promise<void> {
  await page.route(`${USER_POOL}**`, async (route) => {
    if (!route.request().headers()['x-amz-target']?.endsWith('.GetUser')) return route.fallback();
    const response = await route.fetch();
    const body = (await response.json()) as { UserAttributes: { Name: string; Value: string }[] };
    body.UserAttributes = body.UserAttributes.map((a) => (a.Name === 'email_verified' ? { ...a, Value: 'false' } : a));
    await route.fulfill({ response, json: body });
  });
  await signIn(page, accounts.free.email, accounts.free.password);
  await button(page, 'Verify').waitFor();
}

async function forgotPassword(page: Page, email: string): Promise<void> {
  await button(page, 'Forgot your password?').click();
  await field(page, 'Enter your email').fill(email);
  await button(page, 'Send code').click();
  await button(page, 'Resend code').waitFor();
}

async function fillSignUp(page: Page, email: string, password: string, confirm: string): Promise<void> {
  await page.getByRole('tab', { name: 'Create Account' }).click();
  await field(page, 'Email').fill(email);
  await field(page, 'Name').fill('Kit Screens');
  await field(page, 'Phone Number').fill('(234) 567-8900');
  await field(page, 'Password').fill(password);
  await field(page, 'Confirm Password').fill(confirm);
  // Out of the last field: the kit checks a field when it loses focus.
  await page.getByRole('heading', { level: 1 }).click();
}

async function agreeAndCreate(page: Page, width: number): Promise<void> {
  await fillSignUp(page, `kit-screens-${width}@trailsense.example`, 'a long enough password', 'a long enough password');
  // The kit draws its own box over the checkbox: click the label, as a person does.
  await page.getByText('I agree with the Terms & Conditions', { exact: true }).click();
  await page.getByRole('checkbox', { name: 'I agree with the Terms & Conditions' }).waitFor({ state: 'attached' });
}

/** Every screen and state of the kit that /login shows (docs/product.md#sign-in-flow). */
const SCREENS: Screen[] = [
  { name: 'sign-in', signUp: false, reach: async () => {} },
  {
    name: 'sign-in-password-shown',
    signUp: false,
    async reach(page) {
      await field(page, 'Email').fill(accounts.subscriber.email);
      await field(page, 'Password').fill('a password shown');
      const show = page.getByRole('switch', { name: 'Show password' });
      await show.click();
      await expect(show).toBeChecked();
    },
  },
  {
    name: 'sign-in-submitting',
    signUp: false,
    async reach(page) {
      // The sign-in request is held, so the button stays "Signing in" with its spinner.
      await page.route(`${USER_POOL}**`, (route) =>
        route.request().headers()['x-amz-target']?.endsWith('.InitiateAuth') ? new Promise<void>(() => {}) : route.fallback(),
      );
      await signIn(page, accounts.subscriber.email, accounts.subscriber.password);
      await button(page, 'Signing in').waitFor();
    },
  },
  {
    name: 'sign-in-wrong-password',
    signUp: false,
    async reach(page) {
      await signIn(page, accounts.subscriber.email, 'not the password');
      await page.getByText('Incorrect username or password.').waitFor();
    },
  },
  {
    name: 'forgot-password',
    signUp: false,
    async reach(page) {
      await button(page, 'Forgot your password?').click();
      await button(page, 'Send code').waitFor();
    },
  },
  {
    name: 'confirm-reset-password',
    signUp: false,
    reach: (page) => forgotPassword(page, accounts.partner.email),
  },
  {
    name: 'confirm-reset-password-invalid',
    signUp: false,
    async reach(page) {
      await forgotPassword(page, accounts.partner.email);
      await page.getByRole('textbox', { name: 'Code' }).fill('123456');
      await field(page, 'New Password').fill('short');
      await field(page, 'Confirm Password').fill('different');
      await page.getByRole('heading', { level: 1 }).click();
      await page.getByText('Your passwords must match').waitFor();
    },
  },
  { name: 'verify-contact', signUp: false, reach: verifyContact },
  {
    name: 'confirm-verify-contact',
    signUp: false,
    async reach(page) {
      await verifyContact(page);
      await button(page, 'Verify').click();
      await button(page, 'Submit').waitFor();
    },
  },
  { name: 'sign-in-tabs', signUp: true, reach: async () => {} },
  {
    name: 'create-account',
    signUp: true,
    async reach(page) {
      await page.getByRole('tab', { name: 'Create Account' }).click();
      await button(page, 'Create Account').waitFor();
    },
  },
  {
    name: 'create-account-invalid',
    signUp: true,
    async reach(page) {
      await fillSignUp(page, 'not-an-email', 'short', 'different');
      await page.getByText('Your passwords must match').waitFor();
    },
  },
  { name: 'create-account-ready', signUp: true, reach: agreeAndCreate },
  {
    name: 'confirm-sign-up',
    signUp: true,
    async reach(page, width) {
      await agreeAndCreate(page, width);
      await button(page, 'Create Account').click();
      await button(page, 'Confirm').waitFor();
    },
  },
];

/** A rule of one of the kit's per-component sheets, with its selector made state-free. */
interface KitRule {
  sheet: string;
  selector: string;
}

/** The kit's per-component sheets that make its whole stylesheet, styles.layer.css (all but reset.layer.css). */
function kitSheetFiles(): string[] {
  return fs.readdirSync(KIT_SHEETS_DIR).filter((f) => f.endsWith('.layer.css') && f !== 'reset.layer.css');
}

/**
 * The rules of every sheet the kit's whole stylesheet (styles.layer.css) is made of: base and the
 * component sheets (reset.layer.css is not part of it). Parsed by Chromium; each selector with its
 * pseudo-classes and pseudo-elements taken out (`.amplify-button:hover` counts as
 * `.amplify-button`, `:not(…)` as nothing), so a rule for a state not captured (hover, focus,
 * checked, disabled) counts when its element is on the page: a sheet is kept rather than dropped.
 */
async function kitRules(page: Page): Promise<KitRule[]> {
  const sheets = kitSheetFiles().map((f) => ({ sheet: f, text: fs.readFileSync(path.join(KIT_SHEETS_DIR, f), 'utf8') }));
  // (No named functions inside evaluate(): tsx would wrap them in a helper the page lacks.)
  const rules = await page.evaluate((all) => {
    const found: { sheet: string; selector: string }[] = [];
    for (const { sheet, text } of all) {
      const parsed = new CSSStyleSheet();
      parsed.replaceSync(text);
      // Style rules inside layers, media queries and @supports too.
      const pending: CSSRule[] = [...parsed.cssRules];
      for (let rule = pending.pop(); rule; rule = pending.pop()) {
        if (rule instanceof CSSStyleRule) found.push({ sheet, selector: rule.selectorText });
        if ('cssRules' in rule) pending.push(...(rule.cssRules as CSSRuleList));
      }
    }
    return found;
  }, sheets);
  return rules.map((r) => ({ sheet: r.sheet, selector: stateFree(r.selector) }));
}

/** `selector` without its pseudo-classes and pseudo-elements (and their arguments); `*` where that leaves a compound empty. */
function stateFree(selector: string): string {
  let out = '';
  let inAttribute = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\') {
      out += c + (selector[++i] ?? '');
      continue;
    }
    if (c === '[') inAttribute = true;
    else if (c === ']') inAttribute = false;
    if (c !== ':' || inAttribute) {
      out += c;
      continue;
    }
    if (out === '' || /[\s>+~,(]$/.test(out)) out += '*';
    while (selector[i + 1] === ':') i++;
    while (i + 1 < selector.length && /[\w-]/.test(selector[i + 1]!)) i++;
    if (selector[i + 1] === '(') {
      let depth = 0;
      do {
        i++;
        if (selector[i] === '(') depth++;
        else if (selector[i] === ')') depth--;
      } while (depth > 0 && i < selector.length);
    }
  }
  return out;
}

/** For each sheet, how many of its rules match an element of the page now. */
function matchingRules(page: Page, rules: KitRule[]): Promise<Record<string, number>> {
  return page.evaluate((all) => {
    const counts: Record<string, number> = {};
    for (const { sheet, selector } of all) {
      let matches = true; // a selector Chromium cannot query counts as matching: kept, not dropped
      try {
        matches = document.querySelector(selector) !== null;
      } catch {
        // kept
      }
      if (matches) counts[sheet] = (counts[sheet] ?? 0) + 1;
    }
    return counts;
  }, rules);
}

/** The kit's class names and data-amplify-* attributes on the page now. */
function kitMarkers(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found = new Set<string>();
    for (const element of document.querySelectorAll('*')) {
      for (const c of element.classList) if (c.startsWith('amplify-')) found.add(`.${c}`);
      for (const a of element.getAttributeNames()) if (a.startsWith('data-amplify-')) found.add(`[${a}]`);
    }
    return [...found].sort();
  });
}

async function settle(page: Page): Promise<void> {
  // The pointer off the page's controls (no :hover), fonts in, two frames drawn.
  await page.mouse.move(0, 0);
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
}

interface CaptureRecord {
  /** Stylesheets /login loaded from auth-remote's origin: bytes as built, and gzip -9. */
  css: { file: string; raw: number; gzip: number }[];
  /** Per sheet of the kit: the screens on which one of its rules matches the page. */
  coverage: Record<string, string[]>;
  /** Per screen: the kit's class names and data-amplify-* attributes. */
  markers: Record<string, string[]>;
}

/** The stylesheets the page loads from `origin`, as they arrive. */
function stylesheetsFrom(page: Page, origin: string): Promise<CaptureRecord['css']>[] {
  const sheets: Promise<CaptureRecord['css']>[] = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== origin || !url.pathname.endsWith('.css')) return;
    sheets.push(
      response.body().then(
        (body) => [{ file: url.pathname.slice(1), raw: body.length, gzip: gzipSync(body, { level: 9 }).length }],
        () => [],
      ),
    );
  });
  return sheets;
}

async function captureScreen(browser: Browser, stack: Stack, screen: Screen, width: number, out: string, rules: KitRule[], record: CaptureRecord) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    const css = stylesheetsFrom(page, `http://localhost:${stack.ports.auth}`);
    await page.goto(`${stack.shellUrl}/login`);
    await button(page, 'Sign In').waitFor();
    await screen.reach(page, width);
    await settle(page);
    await page.screenshot({ path: path.join(out, `${screen.name}-${width}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
    for (const [sheet, count] of Object.entries(await matchingRules(page, rules))) {
      if (count > 0) (record.coverage[sheet] ??= []).push(`${screen.name}-${width}`);
    }
    record.markers[`${screen.name}-${width}`] = await kitMarkers(page);
    if (record.css.length === 0) record.css = (await Promise.all(css)).flat().sort((a, b) => a.file.localeCompare(b.file));
  } finally {
    await context.close();
  }
}

/** Captures every screen at every width from the builds in `dists` into `out`. */
async function capture(out: string, dists: DistDirs): Promise<CaptureRecord> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const sandbox = await startSandbox({ dataDir: path.join(repo, '.sandbox-data/kit-screens'), reset: true, quiet: true });
  const stack = await startStack(3000, undefined, dists);
  const baseConfig = JSON.parse(fs.readFileSync(stack.configFile, 'utf8')) as { auth: Record<string, unknown> };
  const browser = await chromium.launch(chromiumLaunchOptions());
  const record: CaptureRecord = { css: [], coverage: {}, markers: {} };
  try {
    const rules = await kitRules(await browser.newPage());
    for (const signUp of [false, true]) {
      // The static server reads the config on each request.
      fs.writeFileSync(stack.configFile, JSON.stringify({ ...baseConfig, auth: { ...baseConfig.auth, signUpEnabled: signUp } }));
      for (const screen of SCREENS.filter((s) => s.signUp === signUp)) {
        for (const width of WIDTHS) await captureScreen(browser, stack, screen, width, out, rules, record);
      }
    }
  } finally {
    await browser.close();
    await stack.close();
    await sandbox.stop();
  }
  fs.writeFileSync(path.join(out, 'capture.json'), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/** The per-component sheets sign-in-kit-styles.ts imports. */
function importedSheets(): Set<string> {
  const text = fs.existsSync(KIT_STYLES) ? fs.readFileSync(KIT_STYLES, 'utf8') : '';
  return new Set([...text.matchAll(/import '@aws-amplify\/ui-react\/styles\/([\w.]+)'/g)].map((m) => m[1]!));
}

function printCss(record: CaptureRecord): void {
  const total = (key: 'raw' | 'gzip') => record.css.reduce((n, f) => n + f[key], 0);
  console.log(`CSS /login loads from auth-remote: ${record.css.map((f) => `${f.file} ${f.raw} B (gzip -9 ${f.gzip} B)`).join(', ')}`);
  console.log(`in all: ${total('raw')} B, gzip -9 ${total('gzip')} B`);
}

function printCoverage(record: CaptureRecord): void {
  const imported = importedSheets();
  const sheets = [...new Set([...Object.keys(record.coverage), ...imported])].sort();
  console.log("\nThe kit's sheets: rules matching a captured screen, and whether sign-in-kit-styles.ts imports the sheet\n");
  printTable([
    ['sheet', 'screens with a matching rule', 'imported'],
    ...sheets.map((s) => {
      const on = record.coverage[s] ?? [];
      const verdict = imported.has(s) ? 'yes' : on.length > 0 ? 'NO (used, missing)' : 'no';
      return [s, on.length === 0 ? '-' : `${on.length} of ${Object.keys(record.markers).length}`, verdict];
    }),
  ]);
  console.log(`(the kit's other ${kitSheetFiles().length - sheets.length} sheets: no rule matches an element of any captured screen)`);
}

/** Decodes two PNGs in Chromium (no colour conversion) and counts the pixels that differ; a diff image marks them red. */
async function comparePngs(page: Page, a: Buffer, b: Buffer): Promise<{ width: number; height: number; differing: number; diff: Buffer | null }> {
  const result = await page.evaluate(
    async ({ pngA, pngB }) => {
      const [x, y] = await Promise.all(
        [pngA, pngB].map(async (base64) => {
          const blob = await (await fetch(`data:image/png;base64,${base64}`)).blob();
          const bitmap = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const context = canvas.getContext('2d', { willReadFrequently: true })!;
          context.drawImage(bitmap, 0, 0);
          return context.getImageData(0, 0, bitmap.width, bitmap.height);
        }),
      );
      if (!x || !y) throw new Error('two images expected');
      const width = Math.max(x.width, y.width);
      const height = Math.max(x.height, y.height);
      const canvas = new OffscreenCanvas(width, height);
      const context = canvas.getContext('2d')!;
      const diff = context.createImageData(width, height);
      let differing = 0;
      for (let row = 0; row < height; row++) {
        for (let col = 0; col < width; col++) {
          const inX = row < x.height && col < x.width;
          const inY = row < y.height && col < y.width;
          const ix = (row * x.width + col) * 4;
          const iy = (row * y.width + col) * 4;
          let same = inX && inY;
          for (let k = 0; same && k < 4; k++) same = x.data[ix + k] === y.data[iy + k];
          const o = (row * width + col) * 4;
          if (!same) differing++;
          // Differing pixels red; the rest a faint copy of the first image.
          const grey = inX ? 255 - (255 - (x.data[ix]! + x.data[ix + 1]! + x.data[ix + 2]!) / 3) * 0.2 : 255;
          diff.data.set(same ? [grey, grey, grey, 255] : [255, 0, 0, 255], o);
        }
      }
      if (differing === 0) return { width, height, differing, diff: null };
      context.putImageData(diff, 0, 0);
      const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
      let binary = '';
      for (const byte of bytes) binary += String.fromCharCode(byte);
      return { width, height, differing, diff: btoa(binary) };
    },
    { pngA: a.toString('base64'), pngB: b.toString('base64') },
  );
  return { ...result, diff: result.diff === null ? null : Buffer.from(result.diff, 'base64') };
}

/** Compares every screenshot of `before` with the same of `after`; prints the table; writes diff-*.png into `after`. */
async function compare(before: string, after: string): Promise<void> {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const rows: string[][] = [];
  try {
    const page = await browser.newPage();
    for (const screen of SCREENS) {
      for (const width of WIDTHS) {
        const file = `${screen.name}-${width}.png`;
        const a = path.join(before, file);
        const b = path.join(after, file);
        if (!fs.existsSync(a) || !fs.existsSync(b)) {
          rows.push([screen.name, String(width), '-', `missing in ${fs.existsSync(a) ? after : before}`]);
          continue;
        }
        const result = await comparePngs(page, fs.readFileSync(a), fs.readFileSync(b));
        if (result.diff) fs.writeFileSync(path.join(after, `diff-${file}`), result.diff);
        const share = (100 * result.differing) / (result.width * result.height);
        rows.push([screen.name, String(width), `${result.width}×${result.height}`, String(result.differing), `${share.toFixed(3)} %`]);
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`\nKit screens, ${before} → ${after}: differing pixels\n`);
  printTable([['screen', 'width', 'size (px)', 'differing pixels', 'share'], ...rows]);
}

/** The three apps' builds under `root` (as a saved copy of their dist/ folders is laid out). */
function distsUnder(root: string): DistDirs {
  const dists = { shell: path.join(root, 'shell'), auth: path.join(root, 'auth-remote'), uploader: path.join(root, 'uploader-remote') };
  for (const dir of Object.values(dists)) if (!fs.existsSync(dir)) throw new Error(`${dir} does not exist`);
  return dists;
}

async function main(args: string[]): Promise<void> {
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const [command, first, second] = args;
  if (command === 'capture' && first) {
    const dist = option('--dist');
    const record = await capture(path.resolve(first), dist ? distsUnder(path.resolve(dist)) : {});
    printCss(record);
    printCoverage(record);
  } else if (command === 'compare' && first && second) {
    await compare(path.resolve(first), path.resolve(second));
  } else if (command === '--before' && first) {
    const before = path.join(OUT_ROOT, 'before');
    const after = path.join(OUT_ROOT, 'after');
    const beforeRecord = await capture(before, distsUnder(path.resolve(first)));
    const afterRecord = await capture(after, {});
    console.log(`\nbefore (the builds in ${first}):`);
    printCss(beforeRecord);
    console.log("\nafter (this tree's builds):");
    printCss(afterRecord);
    printCoverage(afterRecord);
    await compare(before, after);
  } else {
    console.error('usage: kit-screens.ts --before <dir> | capture <out> [--dist <dir>] | compare <before-out> <after-out>');
    process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
