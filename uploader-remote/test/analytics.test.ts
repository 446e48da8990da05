/**
 * @jest-environment node
 */
// Node has fetch, Request and Response, which ky needs and jsdom lacks; no DOM is used here.
import { createAnalytics, firehoseAnalytics, noAnalytics, sandboxAnalytics, type FirehoseModule } from '../src/features/upload/services/analytics/analytics';

describe('sandboxAnalytics', () => {
  it('POSTs each event as JSON to the endpoint', async () => {
    const fetchImpl = jest.fn(async () => new Response('{}', { status: 201 }));
    await sandboxAnalytics('http://sink.test/events', fetchImpl).track({
      name: 'imageUpload',
      ranchid: 'cedar-creek',
      key: 'k.jpg',
      uploadCount: 3,
    });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('http://sink.test/events');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({ name: 'imageUpload', ranchid: 'cedar-creek', key: 'k.jpg', uploadCount: 3 });
  });

  it('never rejects: a failing sink is logged', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchImpl = (async () => new Response('', { status: 500 })) as typeof fetch;
    await expect(
      sandboxAnalytics('http://sink.test/events', fetchImpl).track({ name: 'uploadFailure', ranchid: 'r', failureCount: 1 }),
    ).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledWith('Could not record the uploadFailure analytics event', expect.any(Error));
    error.mockRestore();
  });
});

describe('firehoseAnalytics', () => {
  it('loads Amplify Firehose only on the first event, once, and records the event as JSON bytes', async () => {
    const record = jest.fn();
    const load = jest.fn(async (): Promise<FirehoseModule> => ({ record, flushEvents: jest.fn() }));
    const analytics = firehoseAnalytics({ region: 'us-east-2', streamName: 'uploads' }, load);
    expect(load).not.toHaveBeenCalled();
    await analytics.track({ name: 'uploadFailure', ranchid: 'r', failureCount: 2 });
    await analytics.track({ name: 'uploadFailure', ranchid: 'r', failureCount: 3 });
    expect(load).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledWith('us-east-2');
    const first = record.mock.calls[0][0] as { streamName: string; data: Uint8Array };
    expect(first.streamName).toBe('uploads');
    expect(JSON.parse(new TextDecoder().decode(first.data))).toEqual({ name: 'uploadFailure', ranchid: 'r', failureCount: 2 });
  });
});

describe('createAnalytics', () => {
  it('gives the none adapter for provider none', () => {
    expect(createAnalytics({ provider: 'none' })).toBe(noAnalytics);
  });
});
