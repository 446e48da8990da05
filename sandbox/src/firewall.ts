/**
 * The uploads API's firewall, as the sandbox plays it (infra/docs/server.md#the-uploads-apis-firewall):
 * in front of the uploads API's paths and `POST /events`, before the token is checked, it counts
 * each client address's requests over a trailing window and answers an address over the limit with
 * the firewall's 429 (UPLOADS_EDGE_ANSWERS.rateLimited, `Retry-After`, CORS for any origin), as
 * production's rate-based rule does; a switch can also answer every request 429 (an address over
 * the limit now) or 403 (the managed rules' refusal), so a browser test sees both without sending
 * hundreds of requests. Pure: the caller gives the time.
 *
 * Specs (`--firewall`, `$SANDBOX_FIREWALL`, the control path `/_sandbox/firewall`):
 * - `<limit>/<seconds>`: at most `limit` requests per address in any `seconds` (production's
 *   `DEFAULT_FIREWALL`); every request counts, the refused ones too (so an address that keeps
 *   asking stays refused, as with WAF). CORS preflights are not counted or refused here: a
 *   refused preflight is a network error to the page, which could not read the 429 (production
 *   counts them under a rule of their own);
 * - `429[:<retry-after seconds>]`: every request refused as over the limit, saying to wait that long
 *   (default the contract's);
 * - `403`: every request refused by the managed rules;
 * - `off`: nothing refused (the browser tests' default: all their members share one address).
 */
import { UPLOADS_EDGE_ANSWER_HEADERS, UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import { ranchScoped } from './ranch-scope';

export type FirewallMode =
  { kind: 'off' } | { kind: 'rate'; limit: number; windowMs: number } | { kind: 'limited'; retryAfterSeconds: number } | { kind: 'refuse' };

/** Production's rate rule: 600 requests per address in 5 minutes (infra/src/stacks/uploads-firewall.ts). */
export const DEFAULT_FIREWALL = '600/300';

const FORMAT = 'expected <limit>/<seconds> (e.g. 600/300), 429[:<retry-after seconds>], 403 or off';

export function parseFirewall(spec: string): FirewallMode | string {
  const text = spec.trim();
  if (text === 'off' || text === '0') return { kind: 'off' };
  if (text === '403') return { kind: 'refuse' };
  const limited = /^429(?::(\d{1,5}))?$/.exec(text);
  if (limited)
    return { kind: 'limited', retryAfterSeconds: limited[1] === undefined ? UPLOADS_EDGE_ANSWERS.rateLimited.retryAfterSeconds : Number(limited[1]) };
  const rate = /^(\d{1,7})\/(\d{1,6})$/.exec(text);
  if (!rate) return `bad firewall "${spec.slice(0, 64)}": ${FORMAT}`;
  const limit = Number(rate[1]);
  const seconds = Number(rate[2]);
  if (limit < 1 || seconds < 1) return `bad firewall "${spec}": the limit and the window must be at least 1`;
  return { kind: 'rate', limit, windowMs: seconds * 1000 };
}

export function formatFirewall(mode: FirewallMode): string {
  switch (mode.kind) {
    case 'off':
      return 'off';
    case 'refuse':
      return '403';
    case 'limited':
      return `429:${mode.retryAfterSeconds}`;
    case 'rate':
      return `${mode.limit}/${mode.windowMs / 1000}`;
  }
}

/** What the firewall answers instead of the API, or null to let the request through. */
export interface FirewallAnswer {
  status: number;
  headers: Record<string, string>;
  body: { message: string };
}

/** At most this many addresses are remembered (the oldest forgotten first), so a flood of addresses cannot grow it without end. */
const MAX_ADDRESSES = 10_000;

export interface Firewall {
  /** Counts a request from `address` at `now` (ms) and says whether it goes through. */
  check(address: string, now: number): FirewallAnswer | null;
  set(mode: FirewallMode): void;
  mode(): FirewallMode;
  /** Requests refused since it started. */
  refused(): number;
}

export function createFirewall(initial: FirewallMode): Firewall {
  let mode = initial;
  let refusedCount = 0;
  const seen = new Map<string, number[]>();
  const refuse = (answer: FirewallAnswer): FirewallAnswer => {
    refusedCount++;
    return answer;
  };
  const rateLimited = (retryAfterSeconds: number): FirewallAnswer => ({
    status: UPLOADS_EDGE_ANSWERS.rateLimited.status,
    headers: { ...UPLOADS_EDGE_ANSWER_HEADERS, 'Retry-After': String(retryAfterSeconds) },
    body: { message: UPLOADS_EDGE_ANSWERS.rateLimited.message },
  });
  return {
    check(address, now) {
      switch (mode.kind) {
        case 'off':
          return null;
        case 'refuse':
          return refuse({
            status: UPLOADS_EDGE_ANSWERS.refused.status,
            headers: { ...UPLOADS_EDGE_ANSWER_HEADERS },
            body: { message: UPLOADS_EDGE_ANSWERS.refused.message },
          });
        case 'limited':
          return refuse(rateLimited(mode.retryAfterSeconds));
        case 'rate': {
          const since = now - mode.windowMs;
          // The newest limit + 1 are all it takes to know whether more than `limit` fall in the window.
          const times = (seen.get(address) ?? []).filter((t) => t > since).slice(-mode.limit);
          times.push(now);
          seen.delete(address);
          seen.set(address, times);
          if (seen.size > MAX_ADDRESSES) seen.delete(seen.keys().next().value as string);
          return times.length > mode.limit ? refuse(rateLimited(UPLOADS_EDGE_ANSWERS.rateLimited.retryAfterSeconds)) : null;
        }
      }
    },
    set(next) {
      mode = next;
      seen.clear();
    },
    mode: () => mode,
    refused: () => refusedCount,
  };
}

/**
 * The firewall per ranch beside the process-wide one (ranch-scope.ts): a request about a ranch
 * with a firewall of its own (set by the control with `?ranch=`) meets that one, with its own
 * counts; every other request, and `POST /events` (which names no ranch), the process-wide one.
 */
export interface RanchFirewalls {
  check(address: string, now: number, ranch?: string): FirewallAnswer | null;
  set(mode: FirewallMode, ranch?: string): void;
  mode(ranch?: string): FirewallMode;
  refused(ranch?: string): number;
}

export function createRanchFirewalls(initial: FirewallMode): RanchFirewalls {
  const firewalls = ranchScoped(() => createFirewall({ kind: 'off' }), createFirewall(initial));
  return {
    check: (address, now, ranch) => firewalls.for(ranch).check(address, now),
    set: (mode, ranch) => firewalls.own(ranch).set(mode),
    mode: (ranch) => firewalls.for(ranch).mode(),
    refused: (ranch) => firewalls.for(ranch).refused(),
  };
}
