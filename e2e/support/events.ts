// The sandbox's analytics sink, as tests read it: what the pages reported (docs/monitoring.md#delivery).
import localConfig from '../../config/local.json';

const sink = localConfig.analytics.endpoint;

export interface Stored {
  id: number;
  name: string;
  [field: string]: unknown;
}

/** The sink's events of one name, after `afterId`. */
export async function eventsNamed(name: string, afterId = 0): Promise<Stored[]> {
  const res = await fetch(`${sink}?name=${encodeURIComponent(name)}`);
  const body = (await res.json()) as { events: Stored[] };
  return body.events.filter((event) => event.id > afterId);
}

/** The highest event id so far: what a test adds comes after it. */
export async function lastEventId(): Promise<number> {
  const res = await fetch(sink);
  const body = (await res.json()) as { events: Stored[] };
  return body.events.reduce((max, event) => Math.max(max, event.id), 0);
}
