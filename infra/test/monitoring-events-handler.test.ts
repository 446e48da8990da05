import type { PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { MONITORING_BATCH_LIMITS } from '@trailsense/shared/analytics-events';
import type { CollectedEvent } from '@trailsense/shared/analytics-events';
import { handleMonitoringEvents } from '../src/uploads-api/events';
import type { EventsDeps, EventsRequest } from '../src/uploads-api/events';
import { eventsRequestOf, FIREHOSE_LIMITS, firehoseEvents, putBatchesOf, recordsOf } from '../src/uploads-api/events-lambda';
import type { FirehoseSender } from '../src/uploads-api/events-lambda';

const SITE = 'https://www.trailsense.example';
const vital: CollectedEvent = { name: 'webVital', metric: 'LCP', value: 1234, rating: 'good', route: '/', navigationType: 'navigate' };
const error: CollectedEvent = {
  name: 'clientError',
  kind: 'remote-load',
  message: 'Failed to get manifest',
  module: 'uploader/Uploader',
  route: '/uploader',
  release: '1.4.0',
  suppressed: 0,
};

/** The port, faked: what was stored. */
function deps(fail = false): EventsDeps & { stored: CollectedEvent[][] } {
  const stored: CollectedEvent[][] = [];
  return {
    stored,
    siteOrigins: [SITE],
    events: {
      put: async (events) => {
        if (fail) throw new Error('Firehose is down');
        stored.push([...events]);
      },
    },
  };
}

const post = (body: string | null, extra: Partial<EventsRequest> = {}): EventsRequest => ({ method: 'POST', body, origin: SITE, ...extra });
const batch = (events: unknown[]) => JSON.stringify({ events });

describe('handleMonitoringEvents', () => {
  it('stores a valid batch through the port and answers 202 with the count', async () => {
    const d = deps();
    expect(await handleMonitoringEvents(post(batch([vital, error])), d)).toEqual({ status: 202, body: { accepted: 2 } });
    expect(d.stored).toEqual([[vital, error]]);
  });

  it('takes a request without an Origin (not from a browser) and refuses another site’s', async () => {
    const d = deps();
    expect((await handleMonitoringEvents({ method: 'POST', body: batch([vital]) }, d)).status).toBe(202);
    expect(await handleMonitoringEvents(post(batch([vital]), { origin: 'https://evil.example' }), d)).toEqual({
      status: 403,
      body: { message: 'Events are taken from the site’s own pages only' },
    });
    expect(await handleMonitoringEvents(post(batch([vital]), { origin: 'null' }), d)).toMatchObject({ status: 403 });
    expect(d.stored).toHaveLength(1);
  });

  it('refuses a body that is not JSON, or not { events: [...] }', async () => {
    const d = deps();
    for (const body of ['{"events": [', '', null, 'null', '[]', '"x"', '{"events": {}}', '{}']) {
      const answer = await handleMonitoringEvents(post(body), d);
      expect(answer.status).toBe(400);
      expect((answer.body as { message: string }).message).toMatch(/JSON|"events" must be an array/);
    }
    expect(d.stored).toEqual([]);
  });

  it('refuses a field of the body other than events', async () => {
    expect(await handleMonitoringEvents(post(JSON.stringify({ events: [vital], user: 'dale' })), deps())).toEqual({
      status: 400,
      body: { message: '"user" is not a field of the body. The body must be a JSON object: { "events": [ ... ] }' },
    });
  });

  it('refuses an empty batch', async () => {
    expect(await handleMonitoringEvents(post(batch([])), deps())).toEqual({ status: 400, body: { message: '"events" is empty: send at least one event' } });
  });

  it('refuses an event with an unknown field, naming the event and the field; nothing of the batch is stored', async () => {
    const d = deps();
    expect(await handleMonitoringEvents(post(batch([vital, { ...vital, ranchid: 'cedar-creek' }])), d)).toEqual({
      status: 400,
      body: { message: 'events[1]: ranchid is not a field of webVital' },
    });
    expect(d.stored).toEqual([]);
  });

  it('refuses events with personal data: an e-mail, a URL query, a long number, an address as route', async () => {
    const d = deps();
    const personal = [
      { ...vital, email: 'subscriber@trailsense.example' },
      { ...error, message: 'no ranch for subscriber@trailsense.example' },
      { ...error, message: 'GET https://api.example/x?token=abc failed' },
      { ...error, message: 'phone 5125550142' },
      { ...vital, route: '/profile?email=subscriber@trailsense.example' },
    ];
    for (const event of personal) {
      const answer = await handleMonitoringEvents(post(batch([event])), d);
      expect(answer.status).toBe(400);
      expect((answer.body as { message: string }).message).toMatch(/^events\[0\]: /);
    }
    expect(d.stored).toEqual([]);
  });

  // Every text field of every event the route takes: a control character, a newline (either kind),
  // a terminal escape and personal data are each refused with the field named; nothing is stored.
  const textFields: [string, string][] = [
    ['webVital', 'metric'],
    ['webVital', 'rating'],
    ['webVital', 'route'],
    ['webVital', 'navigationType'],
    ['clientError', 'kind'],
    ['clientError', 'message'],
    ['clientError', 'source'],
    ['clientError', 'module'],
    ['clientError', 'route'],
    ['clientError', 'release'],
  ];
  const lies = ['ok\nforged row', 'ok\r\n| forged | cell |', 'ok\u2028line', '\u001b[2Jcleared', 'nul\u0000byte', 'del\u007f', 'c1\u0085next'];
  it.each(textFields)('refuses control characters and newlines in %s.%s, naming the field and the character', async (name, field) => {
    const d = deps();
    const base = name === 'clientError' ? { ...error, source: '/static/js/main.js' } : { ...vital };
    for (const lie of lies) {
      const text = `${String((base as Record<string, unknown>)[field])}${lie}`;
      const answer = await handleMonitoringEvents(post(batch([vital, { ...base, [field]: text }])), d);
      expect(answer.status).toBe(400);
      const at = [...text].findIndex((c) => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(c)); // eslint-disable-line no-control-regex
      const code = `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
      expect(answer.body).toEqual({
        message: `events[1]: ${field} holds a control character or line break (${code} at character ${at + 1}): text must be one line of printable characters`,
      });
    }
    expect(d.stored).toEqual([]);
  });

  it('refuses a control character in the name of an event and in the name of an unknown field, quoting it harmlessly', async () => {
    expect(await handleMonitoringEvents(post(batch([{ ...vital, name: 'webVital\n' }])), deps())).toEqual({
      status: 400,
      body: { message: 'events[0]: name holds a control character or line break (U+000A at character 9): text must be one line of printable characters' },
    });
    expect(await handleMonitoringEvents(post(batch([{ ...vital, 'x\u001b[2J\n': 1 }])), deps())).toEqual({
      status: 400,
      body: { message: 'events[0]: x\\u001b[2J\\u000a is not a field of webVital' },
    });
    expect(await handleMonitoringEvents(post(JSON.stringify({ events: [vital], 'a\u2028b': 1 })), deps())).toEqual({
      status: 400,
      body: { message: '"a\\u2028b" is not a field of the body. The body must be a JSON object: { "events": [ ... ] }' },
    });
  });

  // Personal data is refused, never scrubbed, in every free-text field (the page scrubs before it
  // sends: shared/src/analytics/client-errors.ts); the route's pattern leaves it no room but digits.
  const personalData: [string, string][] = [
    ['subscriber@trailsense.example', 'an e-mail address'],
    ['https://x.example/p?token=abc', 'a URL with a query or fragment'],
    ['https://x.example/p#access_token=abc', 'a URL with a query or fragment'],
    ['5125550142', 'a run of 6 or more digits'],
  ];
  it.each(['message', 'source', 'module', 'release'])('refuses personal data in clientError.%s, saying what it is', async (field) => {
    const d = deps();
    for (const [personal, what] of personalData) {
      const answer = await handleMonitoringEvents(post(batch([{ ...error, [field]: `v ${personal}` }])), d);
      expect(answer).toEqual({
        status: 400,
        body: { message: `events[0]: ${field} holds ${what}, personal data: scrub it before sending (scrubText) — the route refuses it, it does not scrub it` },
      });
    }
    expect(d.stored).toEqual([]);
  });

  it.each([vital, error])('refuses an id in the route of a $name', async (event) => {
    const d = deps();
    for (const route of ['/ranches/5125550142', '/r/123456']) {
      expect(await handleMonitoringEvents(post(batch([{ ...event, route }])), d)).toEqual({
        status: 400,
        body: { message: 'events[0]: route holds a run of 6 or more digits: a route of the route table has no id in it' },
      });
    }
    expect((await handleMonitoringEvents(post(batch([{ ...event, route: '/r/12345' }])), d)).status).toBe(202);
  });

  it('refuses a batch outcome and the upload events: they go through the analytics port with a session', async () => {
    const outcome = {
      name: 'batchOutcome',
      photos: 1,
      bytes: 1,
      durationMs: 1,
      goodputBytesPerSecond: 1,
      retries: 0,
      failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
      hiddenMs: 0,
      skippedDuplicates: 0,
      stopped: false,
    };
    expect(await handleMonitoringEvents(post(batch([outcome])), deps())).toEqual({
      status: 400,
      body: { message: 'events[0]: batchOutcome is not taken here: only webVital and clientError' },
    });
    expect((await handleMonitoringEvents(post(batch([{ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 1 }])), deps())).status).toBe(400);
  });

  it('refuses more than 20 events with 413, the limit in the message', async () => {
    const events = Array.from({ length: MONITORING_BATCH_LIMITS.maxEvents + 1 }, () => vital);
    expect(await handleMonitoringEvents(post(batch(events)), deps())).toEqual({
      status: 413,
      body: { message: 'Too many events: 21 in one request, at most 20' },
    });
    expect((await handleMonitoringEvents(post(batch(events.slice(1))), deps())).status).toBe(202);
  });

  it('refuses a body over 16 KiB with 413, the limit in the message', async () => {
    const body = batch([vital]) + ' '.repeat(MONITORING_BATCH_LIMITS.maxBytes);
    expect(await handleMonitoringEvents(post(body), deps())).toEqual({
      status: 413,
      body: { message: 'The body is larger than 16384 bytes (16 KiB), the most one request may carry: send fewer events at once' },
    });
  });

  it('refuses a method other than POST', async () => {
    expect(await handleMonitoringEvents({ method: 'get', body: null, origin: SITE }, deps())).toEqual({
      status: 405,
      body: { message: 'Method GET not allowed: POST events' },
    });
  });

  it('answers 500 when the port fails, and logs it', async () => {
    const logged: unknown[] = [];
    expect(await handleMonitoringEvents(post(batch([vital])), deps(true), (e) => logged.push(e))).toEqual({ status: 500, body: { message: 'Internal error' } });
    expect(logged.map(String)).toEqual(['Error: Firehose is down']);
  });

  it('never throws, whatever the body', async () => {
    const bodies = [
      '{"events":[null]}',
      '{"events":[[]]}',
      '{"events":[{"name":"__proto__"}]}',
      '{"__proto__":{"events":[1]}}',
      '\u0000',
      '{"events":[{"name":"webVital","value":1e400}]}',
    ];
    for (let i = 0; i < 200; i++) bodies.push(Array.from({ length: 40 }, () => String.fromCharCode(Math.floor(Math.random() * 128))).join(''));
    for (const body of bodies) {
      const answer = await handleMonitoringEvents(post(body), deps());
      expect([400, 413]).toContain(answer.status);
    }
  });
});

describe('firehoseEvents', () => {
  /** Firehose, faked: each call's records; `refuse` says which records of each call fail. */
  function fakeFirehose(refuse: (call: number, index: number) => boolean = () => false) {
    const calls: { stream: string; records: string[] }[] = [];
    const client: FirehoseSender = {
      send: async (command: PutRecordBatchCommand) => {
        const input = command.input;
        const call = calls.length;
        const records = (input.Records ?? []).map((r) => new TextDecoder().decode(r.Data));
        calls.push({ stream: input.DeliveryStreamName ?? '', records });
        const responses = records.map((_, i) => (refuse(call, i) ? { ErrorCode: 'ServiceUnavailableException' } : { RecordId: `r${i}` }));
        return { FailedPutCount: responses.filter((r) => 'ErrorCode' in r).length, RequestResponses: responses };
      },
    };
    return { client, calls };
  }

  it('puts the events of one request in one record: newline-delimited JSON, one event per line', async () => {
    const firehose = fakeFirehose();
    await firehoseEvents(firehose.client, 'trailsense-events').put([vital, error, vital]);
    expect(firehose.calls).toEqual([
      { stream: 'trailsense-events', records: [`${JSON.stringify(vital)}\n${JSON.stringify(error)}\n${JSON.stringify(vital)}\n`] },
    ]);
    // Read line by line, as the delivered files are: the same events, in order.
    expect(
      firehose.calls[0]!.records.join('')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([vital, error, vital]);
  });

  it('packs events into as few records as the record limit allows, never splitting one', () => {
    const line = `${JSON.stringify(vital)}\n`.length;
    const records = recordsOf([vital, vital, vital, vital, vital], line * 2 + 1);
    expect(records.map((r) => r.length)).toEqual([line * 2, line * 2, line]);
    expect(recordsOf([vital, vital, vital], line * 3)).toHaveLength(1);
    expect(recordsOf([])).toEqual([]);
    expect(() => recordsOf([vital], line - 1)).toThrow(`An event of ${line} bytes does not fit one Firehose record (${line - 1} bytes)`);
  });

  it('puts the largest request the route accepts (20 of the largest client errors, under 16 KiB) as one record in one call', async () => {
    const largest = {
      ...error,
      kind: 'remote-load',
      message: 'é'.repeat(300),
      source: `/${'s'.repeat(299)}`,
      module: 'm'.repeat(100),
      release: 'r'.repeat(100),
      suppressed: Number.MAX_SAFE_INTEGER,
    } as CollectedEvent;
    // The same limit as the route's: the biggest body that passes.
    const events: CollectedEvent[] = [];
    while (events.length < MONITORING_BATCH_LIMITS.maxEvents && Buffer.byteLength(batch([...events, largest])) <= MONITORING_BATCH_LIMITS.maxBytes)
      events.push(largest);
    expect(events.length).toBeGreaterThan(10);
    const d = deps();
    expect((await handleMonitoringEvents(post(batch(events)), d)).status).toBe(202);
    const firehose = fakeFirehose();
    await firehoseEvents(firehose.client, 's').put(d.stored[0]!);
    expect(firehose.calls).toHaveLength(1);
    expect(firehose.calls[0]!.records).toHaveLength(1);
    expect(Buffer.byteLength(firehose.calls[0]!.records[0]!)).toBeLessThanOrEqual(MONITORING_BATCH_LIMITS.maxBytes);
    expect(firehose.calls[0]!.records[0]!.trimEnd().split('\n')).toHaveLength(events.length);
    // Under Firehose's own limits, with room: a record up to 1,000 KiB, a call up to 500 records and 4 MiB.
    expect(FIREHOSE_LIMITS.recordBytes).toBeLessThanOrEqual(1000 * 1024);
    expect(FIREHOSE_LIMITS.batchRecords).toBeLessThanOrEqual(500);
    expect(FIREHOSE_LIMITS.batchBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(MONITORING_BATCH_LIMITS.maxBytes).toBeLessThan(FIREHOSE_LIMITS.recordBytes);
  });

  it('splits records into PutRecordBatch calls of at most 500 records and 4 MB, in order', () => {
    const records = (n: number, size: number) => Array.from({ length: n }, (_, i) => new Uint8Array(size).fill(i % 256));
    expect(putBatchesOf(records(1_001, 10)).map((b) => b.length)).toEqual([500, 500, 1]);
    expect(putBatchesOf(records(9, 1_000_000)).map((b) => b.length)).toEqual([4, 4, 1]);
    expect(putBatchesOf(records(3, 10), { batchRecords: 500, batchBytes: 25 }).map((b) => b.length)).toEqual([2, 1]);
    expect(putBatchesOf([])).toEqual([]);
    const many = records(600, 1);
    expect(putBatchesOf(many).flat()).toEqual(many);
  });

  it('puts records beyond one call in several calls, each under the limits', async () => {
    const firehose = fakeFirehose();
    // Events of nearly 1 MB (the route refuses them; recordsOf does not know): a record each, four to a 4 MB call.
    const big = { ...error, message: 'x'.repeat(999_000) } as CollectedEvent;
    await firehoseEvents(firehose.client, 's').put([big, big, big, big, big]);
    expect(firehose.calls.map((c) => c.records.length)).toEqual([4, 1]);
    for (const call of firehose.calls) {
      expect(call.records.reduce((n, r) => n + Buffer.byteLength(r), 0)).toBeLessThanOrEqual(FIREHOSE_LIMITS.batchBytes);
      for (const record of call.records) expect(Buffer.byteLength(record)).toBeLessThanOrEqual(FIREHOSE_LIMITS.recordBytes);
    }
  });

  it('puts again the record Firehose refused, and fails after two more tries', async () => {
    const once = fakeFirehose((call, i) => call === 0 && i === 0);
    await firehoseEvents(once.client, 's').put([vital, error]);
    expect(once.calls.map((c) => c.records.length)).toEqual([1, 1]);
    expect(once.calls[1]!.records).toEqual([`${JSON.stringify(vital)}\n${JSON.stringify(error)}\n`]);

    const always = fakeFirehose(() => true);
    await expect(firehoseEvents(always.client, 's').put([vital])).rejects.toThrow('Firehose refused 1 of 1 records');
    expect(always.calls).toHaveLength(3);
  });
});

describe('eventsRequestOf (a REST API proxy event)', () => {
  const event = (extra: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    ({ path: '/events', httpMethod: 'POST', headers: {}, body: null, isBase64Encoded: false, ...extra }) as unknown as APIGatewayProxyEvent;

  it('maps the method, the body (base64 too) and the Origin header, whatever its case', () => {
    expect(eventsRequestOf(event({ body: '{"events":[]}', headers: { Origin: SITE } }))).toEqual({ method: 'POST', body: '{"events":[]}', origin: SITE });
    expect(eventsRequestOf(event({ body: '{"events":[]}', headers: { origin: SITE } }))).toEqual({ method: 'POST', body: '{"events":[]}', origin: SITE });
    expect(eventsRequestOf(event({ body: Buffer.from('{}').toString('base64'), isBase64Encoded: true }))).toEqual({ method: 'POST', body: '{}' });
    expect(eventsRequestOf(event({}))).toEqual({ method: 'POST', body: null });
  });
});
