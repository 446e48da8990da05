import {
  clientErrorEvent,
  createErrorGate,
  firstControlCharacter,
  hasPersonalData,
  personalDataIn,
  scrubText,
  MAX_SCRUBBED_INPUT,
  scriptPath,
} from '../src/analytics/client-errors';
import { parseCollectedEvent, parseMonitoringEvent, quoted } from '../src/analytics/event-schema';
import type { ClientErrorEvent } from '../src/analytics/events';
import { monitoringEndpoint, vitalsSampleRate } from '../src/analytics/monitoring';
import { sampledPageView, webVitalEvent } from '../src/analytics/vitals';

/** Personal data a test member has: none of it may appear in an event. */
const PERSONAL = ['subscriber@trailsense.example', 'cedar-creek', 'IMG_0042.JPG', 'public/cedar-creek/3f2a.jpg', 'Dale'];
const carriesNoPersonalData = (event: unknown) => {
  const text = JSON.stringify(event);
  for (const value of PERSONAL) expect(text).not.toContain(value);
};

describe('sampledPageView', () => {
  it('measures a page view when the draw falls under the rate', () => {
    expect(sampledPageView(0.25, () => 0.1)).toBe(true);
    expect(sampledPageView(0.25, () => 0.25)).toBe(false);
    expect(sampledPageView(0.25, () => 0.9)).toBe(false);
  });

  it('measures every page view at 1 and none at 0', () => {
    expect(sampledPageView(1, () => 0.999_999)).toBe(true);
    expect(sampledPageView(0, () => 0)).toBe(false);
  });

  it('measures about the rate’s share of many page views', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    let measured = 0;
    for (let i = 0; i < 10_000; i++) if (sampledPageView(0.25, random)) measured++;
    expect(measured / 10_000).toBeCloseTo(0.25, 1);
  });
});

describe('vitalsSampleRate', () => {
  it('takes the config’s rate, production’s default when it names none, and 0 with analytics off', () => {
    expect(vitalsSampleRate({ provider: 'sandbox', endpoint: 'http://localhost:4104/events', vitalsSampleRate: 1 })).toBe(1);
    expect(vitalsSampleRate({ provider: 'firehose', region: 'us-east-2', streamName: 's' })).toBe(0.25);
    expect(vitalsSampleRate({ provider: 'none' })).toBe(0);
  });
});

describe('monitoringEndpoint', () => {
  const api = { baseUrl: 'https://api.example', uploadsBaseUrl: 'https://uploads.example' };
  it('is the uploads API’s collection route with the sandbox’s analytics and with Firehose, signed in or not', () => {
    expect(monitoringEndpoint({ api, analytics: { provider: 'sandbox', endpoint: 'http://localhost:4104/events' } })).toBe('https://uploads.example/events');
    expect(monitoringEndpoint({ api, analytics: { provider: 'firehose', region: 'us-east-2', streamName: 's' } })).toBe('https://uploads.example/events');
  });

  it('keeps a base URL’s path, without doubling its slash', () => {
    expect(
      monitoringEndpoint({
        api: { ...api, uploadsBaseUrl: 'https://uploads.example/v1/' },
        analytics: { provider: 'firehose', region: 'us-east-2', streamName: 's' },
      }),
    ).toBe('https://uploads.example/v1/events');
  });

  it('is nowhere with analytics off', () => {
    expect(monitoringEndpoint({ api, analytics: { provider: 'none' } })).toBeNull();
  });
});

describe('webVitalEvent', () => {
  it('makes an event of LCP, INP, CLS and TTFB on the route, times in whole ms and CLS to 4 decimals', () => {
    expect(webVitalEvent({ name: 'LCP', value: 1234.56, rating: 'good', navigationType: 'navigate' }, '/login')).toEqual({
      name: 'webVital',
      metric: 'LCP',
      value: 1235,
      rating: 'good',
      route: '/login',
      navigationType: 'navigate',
    });
    expect(webVitalEvent({ name: 'CLS', value: 0.123_456, rating: 'needs-improvement', navigationType: 'reload' }, '/')).toMatchObject({ value: 0.1235 });
    expect(webVitalEvent({ name: 'INP', value: 88, rating: 'good', navigationType: 'navigate' }, '/uploader')).toMatchObject({ metric: 'INP' });
    expect(webVitalEvent({ name: 'TTFB', value: 40.4, rating: 'good', navigationType: 'navigate' }, '/')).toMatchObject({ value: 40 });
  });

  it('records no other metric', () => {
    expect(webVitalEvent({ name: 'FCP', value: 900, rating: 'good', navigationType: 'navigate' }, '/')).toBeNull();
  });

  it('makes events the sink accepts, with nothing personal', () => {
    const event = webVitalEvent({ name: 'LCP', value: 2000, rating: 'good', navigationType: 'navigate' }, '/profile');
    expect(parseMonitoringEvent(event)).toEqual({ ok: true, event });
    carriesNoPersonalData(event);
  });
});

describe('scrubText', () => {
  it('removes e-mail addresses, URL queries and fragments, and long numbers', () => {
    expect(scrubText('User subscriber@trailsense.example not found')).toBe('User <email> not found');
    expect(scrubText('GET https://api.trailsense.example/ranches?email=a%40b.c#x failed')).toBe('GET https://api.trailsense.example/ranches failed');
    expect(scrubText('card 4111111111111111, code 42')).toBe('card <number>, code 42');
    expect(scrubText('Failed to get manifest.\n  args: {}\n')).toBe('Failed to get manifest. args: {}');
  });

  it('reads at most the first 2,048 characters, dropping a word cut there: a huge message costs no time and leaves nothing half-scrubbed', () => {
    // A long run without spaces (minified code, a data URL) keeps its start; a word cut at the end goes.
    const minified = scrubText(`boom ${'x'.repeat(1_000_000)}`);
    expect(minified).toBe(`boom ${'x'.repeat(294)}…`);
    const cut = `${'https://x.example/?q='.padEnd(2040, 'q')} subscriber@trailsense.example`;
    expect(scrubText(cut)).toBe('https://x.example/');
  });

  it('runs no pattern over more than the 2,048 characters it reads, however long the message (bench:scrub times it)', () => {
    // Every RegExp entry point a replace, search or test goes through, and the length of the text it was given.
    const seen: number[] = [];
    const proto = RegExp.prototype as unknown as Record<symbol | string, (this: RegExp, ...args: unknown[]) => unknown>;
    const originals = new Map<symbol | string, (this: RegExp, ...args: unknown[]) => unknown>();
    for (const key of [Symbol.replace, Symbol.search, Symbol.match, Symbol.matchAll, 'exec', 'test'] as const) {
      const original = proto[key]!;
      originals.set(key, original);
      proto[key] = function (this: RegExp, ...args: unknown[]) {
        if (typeof args[0] === 'string') seen.push(args[0].length);
        return original.apply(this, args);
      };
    }
    try {
      // Well past the cut, and short enough that a quadratic pattern still ends (in a second or so) and the test fails instead of hanging.
      for (const message of [`${'a'.repeat(5_000)}@${'b'.repeat(5_000)}`, `http://${'/'.repeat(9_000)}?x`, `${'x '.repeat(4_000)}1234567`]) scrubText(message);
    } finally {
      for (const [key, original] of originals) proto[key] = original;
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(MAX_SCRUBBED_INPUT);
  });

  it('keeps at most 300 characters', () => {
    const scrubbed = scrubText('x'.repeat(1000));
    expect(scrubbed).toHaveLength(300);
    expect(scrubbed.endsWith('…')).toBe(true);
  });
});

describe('control characters', () => {
  it('scrubText puts a space for control characters and line breaks: the event is one line a sink accepts', () => {
    expect(scrubText('a\u001b[2Jb\nc\r\nd\u2028e\u0000f\u0085g')).toBe('a [2Jb c d e f g');
    const event = clientErrorEvent({ kind: 'error', message: 'boom\u001b[31m\nforged | row' }, '/uploader', '0.1.0');
    expect(event.message).toBe('boom [31m forged | row');
    expect(parseCollectedEvent(event)).toMatchObject({ ok: true });
  });

  it('the release is scrubbed as any text the sink checks, so a build with a long number in its version still reports', () => {
    const event = clientErrorEvent({ kind: 'error', message: 'boom' }, '/', '0.1.0+build.20261128\n');
    expect(event.release).toBe('0.1.0+build.<number>');
    expect(parseCollectedEvent(event)).toMatchObject({ ok: true });
    expect(parseCollectedEvent({ ...event, release: '0.1.0+build.20261128' })).toMatchObject({ ok: false });
  });
});

describe('scriptPath', () => {
  it('keeps the path of a script URL only', () => {
    expect(scriptPath('http://localhost:3000/static/js/main.1a2b.js?v=subscriber@trailsense.example#L1')).toBe('/static/js/main.1a2b.js');
    expect(scriptPath('not a url')).toBeUndefined();
    expect(scriptPath(undefined)).toBeUndefined();
  });
});

describe('clientErrorEvent', () => {
  it('makes an event with the scrubbed message, the script’s path, the route and the release', () => {
    const event = clientErrorEvent(
      { kind: 'error', message: 'TypeError: no ranch for subscriber@trailsense.example', source: 'https://trailsense.example/static/js/app.js?x=1' },
      '/uploader',
      '0.1.0',
    );
    expect(event).toEqual({
      name: 'clientError',
      kind: 'error',
      message: 'TypeError: no ranch for <email>',
      source: '/static/js/app.js',
      route: '/uploader',
      release: '0.1.0',
      suppressed: 0,
    });
    expect(parseMonitoringEvent(event)).toEqual({ ok: true, event });
    carriesNoPersonalData(event);
  });

  it('names the remote module that did not load, and an empty message as such', () => {
    expect(clientErrorEvent({ kind: 'remote-load', message: '', module: 'uploader/Uploader' }, '/uploader', '0.1.0')).toMatchObject({
      kind: 'remote-load',
      message: '(no message)',
      module: 'uploader/Uploader',
    });
  });
});

describe('createErrorGate', () => {
  const error = (message: string): ClientErrorEvent => clientErrorEvent({ kind: 'error', message }, '/', '0.1.0');

  it('reports an error once per page, however often it happens', () => {
    let now = 0;
    const admit = createErrorGate(() => now);
    expect(admit(error('boom'))).toEqual({ report: true, suppressed: 0 });
    now += 10 * 60_000;
    expect(admit(error('boom'))).toEqual({ report: false });
    expect(admit(clientErrorEvent({ kind: 'rejection', message: 'boom' }, '/', '0.1.0'))).toEqual({ report: true, suppressed: 0 });
  });

  it('reports at most the rate in a window, and the next one reported says how many it held back', () => {
    let now = 0;
    const admit = createErrorGate(() => now, { perWindow: 2, windowMs: 60_000, perPage: 20 });
    expect(admit(error('a')).report).toBe(true);
    now = 1000;
    expect(admit(error('b')).report).toBe(true);
    expect(admit(error('c'))).toEqual({ report: false });
    expect(admit(error('d'))).toEqual({ report: false });
    now = 59_999;
    expect(admit(error('e'))).toEqual({ report: false });
    now = 60_000;
    expect(admit(error('f'))).toEqual({ report: true, suppressed: 3 });
    // One held back is not lost for good: it may be reported once there is room.
    now = 61_000;
    expect(admit(error('c'))).toEqual({ report: true, suppressed: 0 });
  });

  it('reports no more than the page’s total', () => {
    let now = 0;
    const admit = createErrorGate(() => now, { perWindow: 5, windowMs: 1000, perPage: 3 });
    const reported = ['a', 'b', 'c', 'd', 'e'].filter((m) => {
      now += 5000;
      return admit(error(m)).report;
    });
    expect(reported).toEqual(['a', 'b', 'c']);
  });
});

/** A batch's outcome as the uploader reports it (before smaller copies: no copy fields). */
const BATCH_OUTCOME = {
  name: 'batchOutcome',
  photos: 3,
  bytes: 3_000_000,
  durationMs: 6000,
  goodputBytesPerSecond: 500_000,
  retries: 1,
  failures: { upload: 1, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
  hiddenMs: 0,
  skippedDuplicates: 2,
  stopped: false,
};

describe('parseMonitoringEvent', () => {
  const outcome = BATCH_OUTCOME;

  it('accepts the three monitoring events', () => {
    expect(parseMonitoringEvent(outcome)).toEqual({ ok: true, event: outcome });
  });

  it('names the first field that is wrong', () => {
    expect(parseMonitoringEvent({ ...outcome, photos: -1 })).toEqual({ ok: false, message: 'photos must be a non-negative integer' });
    expect(parseMonitoringEvent({ ...outcome, failures: { upload: 1 } })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^failures must be/) as unknown,
    });
    expect(parseMonitoringEvent({ name: 'webVital', metric: 'FID', value: 1, rating: 'good', route: '/', navigationType: 'navigate' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^metric must be one of/) as unknown,
    });
    expect(parseMonitoringEvent({ name: 'pageView' })).toMatchObject({ ok: false });
    expect(parseMonitoringEvent([])).toEqual({ ok: false, message: 'Body must be a JSON object' });
  });

  it('refuses a field not in the schema, so nothing personal rides along', () => {
    expect(parseMonitoringEvent({ ...outcome, email: 'subscriber@trailsense.example' })).toEqual({
      ok: false,
      message: 'email is not a field of batchOutcome',
    });
    expect(parseMonitoringEvent({ ...outcome, ranchid: 'cedar-creek' })).toMatchObject({ ok: false });
  });
});

describe('parseMonitoringEvent: what a browser could leave unscrubbed', () => {
  const error = { name: 'clientError', kind: 'error', message: 'TypeError: x is undefined', route: '/about', release: '1.2.3', suppressed: 0 };
  const vital = { name: 'webVital', metric: 'LCP', value: 1200, rating: 'good', route: '/about', navigationType: 'navigate' };

  it('refuses a message with an e-mail address, a URL query or a long number', () => {
    for (const message of ['no ranch for subscriber@trailsense.example', 'GET https://x.example/a?token=abc failed', 'card 4111111111111111']) {
      expect(parseMonitoringEvent({ ...error, message })).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^message holds (an e-mail|a URL|a run)/) as unknown,
      });
    }
    expect(parseMonitoringEvent({ ...error, source: '/static/js/main.js?user=dale@x.example' })).toMatchObject({ ok: false });
  });

  it('takes what scrubText leaves', () => {
    const message = scrubText('no ranch for subscriber@trailsense.example at https://x.example/a?token=abc, id 1234567');
    expect(parseMonitoringEvent({ ...error, message })).toEqual({ ok: true, event: { ...error, message } });
  });

  it('takes a route of the route table or 404, never an address with more in it', () => {
    for (const route of ['/', '/about', '/login', '404']) expect(parseMonitoringEvent({ ...vital, route })).toMatchObject({ ok: true });
    for (const route of ['/profile?email=a@b.co', '/Users/Dale', 'about', '/about/', '//evil.example', '']) {
      expect(parseMonitoringEvent({ ...vital, route })).toMatchObject({ ok: false });
    }
  });
});

describe('hasPersonalData', () => {
  it('finds what scrubText removes, and nothing in its output', () => {
    expect(hasPersonalData('a@b.example')).toBe(true);
    expect(hasPersonalData('see https://x.example/?q=1')).toBe(true);
    expect(hasPersonalData('id 123456')).toBe(true);
    expect(hasPersonalData('id 12345')).toBe(false);
    // The patterns are global (stateful with test()): the same answer twice.
    expect(hasPersonalData('a@b.example')).toBe(true);
    expect(hasPersonalData(scrubText('a@b.example https://x.example/?q=1 1234567'))).toBe(false);
  });
});

describe('parseCollectedEvent', () => {
  it('takes a vital and a client error, and refuses a batch outcome (it goes through the analytics port)', () => {
    const vital = { name: 'webVital', metric: 'TTFB', value: 12, rating: 'good', route: '/', navigationType: 'navigate' };
    expect(parseCollectedEvent(vital)).toEqual({ ok: true, event: vital });
    expect(
      parseCollectedEvent({
        name: 'batchOutcome',
        photos: 0,
        bytes: 0,
        durationMs: 0,
        goodputBytesPerSecond: 0,
        retries: 0,
        failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
        hiddenMs: 0,
        skippedDuplicates: 0,
        stopped: false,
      }),
    ).toEqual({ ok: false, message: 'batchOutcome is not taken here: only webVital and clientError' });
  });
});

/**
 * Every field of every monitoring event, text or not: a control character (C0, DEL, C1) or a line
 * break (CR, LF, U+2028, U+2029) in a string is refused with the field and the character named;
 * personal data in any free text (the release included) is refused, saying what it is.
 */
describe('parseMonitoringEvent: every field of every event', () => {
  const events: Record<string, Record<string, unknown>> = {
    webVital: { name: 'webVital', metric: 'INP', value: 80, rating: 'good', route: '/uploader', navigationType: 'soft-navigation' },
    batchOutcome: {
      ...BATCH_OUTCOME,
      smallerCopies: true,
      copies: 3,
      bytesSaved: 1_000_000,
    },
    clientError: {
      name: 'clientError',
      kind: 'remote-load',
      message: 'RemoteLoadError: Loading script failed',
      source: '/static/js/main.js',
      module: 'uploader/Uploader',
      route: '/uploader',
      release: '1.4.0',
      suppressed: 0,
    },
  };
  const fields = Object.entries(events).flatMap(([name, event]) => Object.keys(event).map((field) => [name, field] as const));
  const breaks = ['\n', '\r', '\r\n', '\u2028', '\u2029', '\u0000', '\t', '\u001b[31m', '\u007f', '\u0085', '\u009b2J'];

  it('holds every event whole as a start', () => {
    for (const event of Object.values(events)) expect(parseMonitoringEvent(event)).toEqual({ ok: true, event });
  });

  it.each(fields)('%s.%s: a string with a control character or a line break is refused, the field and the character named', (name, field) => {
    const event = events[name]!;
    for (const lie of breaks) {
      // What the field holds (as text, for a number or a flag), then the lie.
      const value = event[field];
      const text = `${typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'x'}${lie}`;
      const code = `U+${lie.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      expect(parseMonitoringEvent({ ...event, [field]: text })).toEqual({
        ok: false,
        message: `${field} holds a control character or line break (${code} at character ${text.length - lie.length + 1}): text must be one line of printable characters`,
      });
    }
  });

  it('batchOutcome.failures: a string, or a kind not of the list, is refused', () => {
    const event = events['batchOutcome']!;
    const failures = event['failures'] as Record<string, number>;
    expect(parseMonitoringEvent({ ...event, failures: { ...failures, upload: '1\n' } })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^failures must be/) as unknown,
    });
    const { upload: _upload, ...rest } = failures;
    expect(parseMonitoringEvent({ ...event, failures: { ...rest, 'upload\u001b': 1 } })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^failures must be/) as unknown,
    });
  });

  const personal: [string, string][] = [
    ['subscriber@trailsense.example', 'an e-mail address'],
    ['https://x.example/a?token=abc', 'a URL with a query or fragment'],
    ['http://x.example/a#id_token=abc', 'a URL with a query or fragment'],
    ['4111111111111111', 'a run of 6 or more digits'],
  ];
  it.each(['message', 'source', 'module', 'release'])('clientError.%s: personal data is refused, saying what it is', (field) => {
    for (const [text, what] of personal) {
      expect(parseMonitoringEvent({ ...events['clientError'], [field]: `v ${text}` })).toEqual({
        ok: false,
        message: `${field} holds ${what}, personal data: scrub it before sending (scrubText) — the route refuses it, it does not scrub it`,
      });
    }
  });

  it.each(['webVital', 'clientError'])('%s.route: an id in a route is refused (the pattern leaves room for digits only)', (name) => {
    expect(parseMonitoringEvent({ ...events[name], route: '/ranches/123456' })).toEqual({
      ok: false,
      message: 'route holds a run of 6 or more digits: a route of the route table has no id in it',
    });
  });

  it('the name of an event: a control character is named as such; an unknown field is quoted without its control characters', () => {
    expect(parseMonitoringEvent({ ...events['webVital'], name: 'webVital\u001b' })).toEqual({
      ok: false,
      message: 'name holds a control character or line break (U+001B at character 9): text must be one line of printable characters',
    });
    expect(parseMonitoringEvent({ ...events['webVital'], 'x\n| forged |': 1 })).toEqual({
      ok: false,
      message: 'x\\u000a| forged | is not a field of webVital',
    });
    expect(quoted('a'.repeat(50))).toBe(`${'a'.repeat(39)}…`);
  });
});

describe('firstControlCharacter and personalDataIn', () => {
  it('say where the first control character is, and what personal data is left', () => {
    expect(firstControlCharacter('ok')).toBeNull();
    expect(firstControlCharacter('a\u2029b\n')).toEqual({ at: 1, code: 'U+2029' });
    expect(firstControlCharacter('\u009b')).toEqual({ at: 0, code: 'U+009B' });
    // Not control characters: printable text from any script, and the no-break space.
    expect(firstControlCharacter('Ошибка: ¿qué? \u00a0 ✓')).toBeNull();
    expect(personalDataIn('ok 12345')).toBeNull();
    expect(personalDataIn('id 123456')).toBe('a run of 6 or more digits');
  });
});

describe('clientErrorEvent: whatever the page saw, an event the route takes', () => {
  it('scrubs and cuts every text it makes, the module and the release included', () => {
    const event = clientErrorEvent(
      {
        kind: 'remote-load',
        message: `boom\u001b[2J\r\n${'x'.repeat(400)}`,
        source: 'https://trailsense.example/static/js/a%0Ab.js?u=subscriber@trailsense.example',
        module: `uploader/\u0085${'m'.repeat(200)} subscriber@trailsense.example`,
      },
      '/uploader',
      '1.4.0+build.20261128\u2028forged',
    );
    expect(parseCollectedEvent(event)).toEqual({ ok: true, event });
    expect(event.module).toHaveLength(100);
    expect(event.release).toBe('1.4.0+build.<number> forged');
    expect(clientErrorEvent({ kind: 'remote-load', message: 'x', module: '\n' }, '/', '1')).not.toHaveProperty('module');
  });
});
