import { parseRuntimeConfig, type ConfigResult } from './validate';

/** Where every app finds its runtime configuration. */
export const CONFIG_URL = '/config.json';

/**
 * Fetches and validates the runtime configuration. Never throws: a network failure, an HTTP
 * error or bad JSON become problems to show, like a bad value.
 */
export async function loadRuntimeConfig(url: string = CONFIG_URL, fetchImpl: typeof fetch = (...args) => fetch(...args)): Promise<ConfigResult> {
  let response: Response;
  try {
    // no-store: a redeployed config must take effect on the next load.
    response = await fetchImpl(url, { cache: 'no-store', headers: { accept: 'application/json' } });
  } catch (error) {
    return { ok: false, problems: [`${url} could not be fetched (${describe(error)}).`] };
  }
  if (!response.ok) {
    return { ok: false, problems: [`${url} answered HTTP ${response.status}.`] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await response.text());
  } catch (error) {
    return { ok: false, problems: [`${url} is not valid JSON (${describe(error)}).`] };
  }
  return parseRuntimeConfig(raw);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
