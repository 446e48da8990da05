/**
 * The S3 PUT fault switch: `<fraction>[:<status>]`, e.g. `0.3:503` (30 % of PUTs answer 503
 * SlowDown, which Amplify retries), `1:403` (every PUT is refused). Parsing is pure; the decision
 * takes a random source so tests can make it deterministic.
 */
export interface PutFault {
  /** 0..1: the share of PUTs (PutObject and UploadPart) that fail. */
  fraction: number;
  /** The HTTP status they fail with (default 503). */
  status: number;
}

export const NO_FAULT: PutFault = { fraction: 0, status: 503 };

export function parsePutFault(spec: string): PutFault | string {
  const m = /^\s*(\d*\.?\d+)\s*(?::\s*(\d{3}))?\s*$/.exec(spec);
  if (!m) return `bad S3 PUT fault "${spec}": expected <fraction>[:<status>], e.g. 0.3:503`;
  const fraction = Number(m[1]);
  const status = m[2] === undefined ? 503 : Number(m[2]);
  if (!(fraction >= 0 && fraction <= 1)) return `bad S3 PUT fault "${spec}": the fraction must be between 0 and 1`;
  if (status < 400 || status > 599) return `bad S3 PUT fault "${spec}": the status must be 4xx or 5xx`;
  return { fraction, status };
}

export function shouldFail(fault: PutFault, random: () => number = Math.random): boolean {
  return fault.fraction > 0 && random() < fault.fraction;
}

const S3_CODES: Record<number, [string, string]> = {
  500: ['InternalError', 'We encountered an internal error. Please try again.'],
  503: ['SlowDown', 'Please reduce your request rate.'],
  403: ['AccessDenied', 'Access Denied'],
  400: ['BadRequest', 'Bad Request'],
};

/** The S3 XML error body for an injected failure. */
export function faultXml(status: number): string {
  const [code, message] = S3_CODES[status] ?? [`Injected${status}`, `Injected failure ${status}`];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message} (sandbox fault switch)</Message></Error>`;
}
