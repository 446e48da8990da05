/** @jest-environment node */
import { loadRuntimeConfig } from '../src/config/load';
import localConfig from '../../config/local.json';

const respond =
  (body: string, status = 200) =>
  async () =>
    new Response(body, { status });

describe('loadRuntimeConfig', () => {
  it('returns the validated config', async () => {
    const result = await loadRuntimeConfig('/config.json', respond(JSON.stringify(localConfig)));
    expect(result.ok).toBe(true);
  });

  it('turns a network failure into a problem instead of throwing', async () => {
    const result = await loadRuntimeConfig('/config.json', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(result).toEqual({ ok: false, problems: ['/config.json could not be fetched (Failed to fetch).'] });
  });

  it('reports an HTTP error status', async () => {
    expect(await loadRuntimeConfig('/config.json', respond('missing', 404))).toEqual({
      ok: false,
      problems: ['/config.json answered HTTP 404.'],
    });
  });

  it('reports a file that is not JSON', async () => {
    const result = await loadRuntimeConfig('/config.json', respond('{"auth": '));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems[0]).toMatch(/^\/config.json is not valid JSON \(/);
  });

  it('asks the browser not to reuse a cached copy', async () => {
    const calls: RequestInit[] = [];
    await loadRuntimeConfig('/config.json', async (_url, init) => {
      calls.push(init ?? {});
      return new Response(JSON.stringify(localConfig));
    });
    expect(calls[0]?.cache).toBe('no-store');
  });
});
