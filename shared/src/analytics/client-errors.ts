/**
 * Client errors as analytics events (docs/monitoring.md#clienterror): what an error says with
 * anything personal scrubbed, and a per-page gate that reports each distinct error once and at
 * most a few a minute. Pure: the clock is injected.
 */
import type { ClientErrorEvent, ClientErrorKind } from './events';

/** An error as the page saw it, before scrubbing. */
export interface ClientErrorInput {
  kind: ClientErrorKind;
  /** The error's text (`TypeError: x is undefined`). */
  message: string;
  /** The script URL it was thrown in, when the browser says. */
  source?: string;
  /** The remote module, for a remote that did not load. */
  module?: string;
}

const MAX_MESSAGE = 300;
/*
 * Every pattern here runs in the page on whatever an error says, and in the sinks on what pages
 * send, so each is linear in its input: its quantifiers are bounded (an address's parts by the
 * lengths SMTP allows, RFC 5321 §4.5.3.1: a local part of 64 octets, a domain of 255, a label of
 * 63), none is nested, and the text is cut to MAX_SCRUBBED_INPUT before any runs. An unbounded
 * `[^\s@]+@` tries again from every character of a long run without spaces: quadratic (a
 * 20,000-character message held Chromium's main thread for 0.8 s). `npm run bench:scrub`.
 */
const EMAIL = /[^\s@"'<>()]{1,64}@[^\s@"'<>()]{1,255}\.[a-z]{2,63}/gi;
const URL_IN_TEXT = /\b(https?:\/\/[^\s?#"'<>]{0,2048})[?#][^\s"'<>]{0,2048}/gi;
/** Long digit runs: phone numbers, ids, card numbers. */
const LONG_NUMBER = /\d{6,}/g;
/**
 * Control characters (C0, DEL, C1) and line breaks (the Unicode line and paragraph separators too):
 * in stored text they would forge rows or send escape codes to a terminal (`npm run report`).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Whether `text` holds a control character or a line break (a sink refuses it: event-schema.ts). */
export function hasControlCharacters(text: string): boolean {
  return text.search(CONTROL) !== -1;
}

/** The first control character or line break of `text` and where it is (0-based), or null. */
export function firstControlCharacter(text: string): { at: number; code: string } | null {
  const at = text.search(CONTROL);
  return at === -1 ? null : { at, code: `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}` };
}

/** What of the personal data scrubText removes `text` still holds, in words, or null. */
export function personalDataIn(text: string): string | null {
  // search, not test: the patterns are global, and search ignores (and keeps) their lastIndex.
  // Callers check lengths first (event-schema.ts: 300 characters at most); the patterns are linear anyway.
  if (text.search(EMAIL) !== -1) return 'an e-mail address';
  if (text.search(URL_IN_TEXT) !== -1) return 'a URL with a query or fragment';
  if (text.search(LONG_NUMBER) !== -1) return 'a run of 6 or more digits';
  return null;
}

/**
 * Whether `text` still holds what scrubText removes: an e-mail address, a URL's query or fragment,
 * a run of 6 or more digits. A sink refuses such an event (event-schema.ts): the client scrubs first.
 */
export function hasPersonalData(text: string): boolean {
  return personalDataIn(text) !== null;
}

/** How much of a text scrubText reads, and the most a sink's check reads: at most 300 characters are kept anyway. */
export const MAX_SCRUBBED_INPUT = 2048;

/** The longest e-mail address SMTP carries (64 + 1 + 255): what of a word cut at the end could be half of one. */
const LONGEST_ADDRESS = 320;

/**
 * The first MAX_SCRUBBED_INPUT characters of `text`. Past the cut, the word cut in two goes too
 * (half an address or number is still personal), but no more than an address's length of it: a
 * long run without spaces (minified code, a data URL) keeps its start. A loop, not `\S*$`, which
 * is quadratic on such a run.
 */
export function scrubbedInput(text: string): string {
  if (text.length <= MAX_SCRUBBED_INPUT) return text;
  let end = MAX_SCRUBBED_INPUT;
  const floor = MAX_SCRUBBED_INPUT - LONGEST_ADDRESS;
  while (end > floor && !/\s/.test(text[end - 1]!)) end--;
  return text.slice(0, end);
}

/** `text` on one line, without control characters, e-mail addresses, URL queries and fragments, or long numbers; at most 300 characters. */
export function scrubText(text: string): string {
  const head = scrubbedInput(text);
  // No "@", no address: the e-mail pattern, linear but the dearest, need not run at all.
  const lines = head.replace(CONTROL, ' ');
  const scrubbed = (lines.includes('@') ? lines.replace(EMAIL, '<email>') : lines)
    .replace(URL_IN_TEXT, '$1')
    .replace(LONG_NUMBER, '<number>')
    .replace(/\s+/g, ' ')
    .trim();
  return scrubbed.length > MAX_MESSAGE ? `${scrubbed.slice(0, MAX_MESSAGE - 1)}…` : scrubbed;
}

/** A script URL's path (no origin, query or fragment), or undefined when it is not a URL. */
export function scriptPath(source: string | undefined): string | undefined {
  if (!source) return undefined;
  try {
    const path = new URL(source).pathname;
    return path ? scrubText(path) : undefined;
  } catch {
    return undefined;
  }
}

/** The event for an error on `route`, from the build `release`. */
export function clientErrorEvent(input: ClientErrorInput, route: string, release: string, suppressed = 0): ClientErrorEvent {
  const source = scriptPath(input.source);
  // Scrubbed and cut to the schema's 100 characters: a module the sink would refuse must not cost the error its report.
  const remoteModule = input.module ? scrubText(input.module).slice(0, 100) : '';
  return {
    name: 'clientError',
    kind: input.kind,
    message: scrubText(input.message) || '(no message)',
    ...(source ? { source } : {}),
    ...(remoteModule ? { module: remoteModule } : {}),
    route,
    // The build's version, scrubbed like any text a sink checks: a release the sink would refuse
    // must not cost the error its report.
    release: scrubText(release).slice(0, 100) || 'unknown',
    suppressed,
  };
}

export interface ErrorGateOptions {
  /** At most this many reports in any `windowMs`. */
  perWindow: number;
  windowMs: number;
  /** At most this many reports for the page's life. */
  perPage: number;
}

/** 5 a minute and 20 a page: a broken release shows in minutes, a loop that throws sends little. */
export const DEFAULT_ERROR_GATE: ErrorGateOptions = { perWindow: 5, windowMs: 60_000, perPage: 20 };

/** What the gate says of one error: report it (with how many it held back before), or not. */
export type GateVerdict = { report: true; suppressed: number } | { report: false };

/**
 * Per page: an error the same as one already reported (kind, message, source, module) is not
 * reported again; beyond the rate or the page's total, errors are held back and counted, and the
 * next one reported says how many.
 */
export function createErrorGate(now: () => number, options: ErrorGateOptions = DEFAULT_ERROR_GATE): (event: ClientErrorEvent) => GateVerdict {
  const seen = new Set<string>();
  const sentAt: number[] = [];
  let total = 0;
  let held = 0;
  return (event) => {
    const signature = [event.kind, event.message, event.source ?? '', event.module ?? ''].join('\n');
    if (seen.has(signature)) return { report: false };
    const at = now();
    while (sentAt.length > 0 && at - sentAt[0]! >= options.windowMs) sentAt.shift();
    if (total >= options.perPage || sentAt.length >= options.perWindow) {
      held++;
      return { report: false };
    }
    seen.add(signature);
    sentAt.push(at);
    total++;
    const suppressed = held;
    held = 0;
    return { report: true, suppressed };
  };
}
