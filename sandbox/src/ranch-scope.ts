/**
 * The test switches (S3 PUT fault and stall, the product API's fault, the uploads API's firewall,
 * the ledger's clock) are kept per ranch beside the process-wide one, so that browser-test
 * workers, each on a tenant of its own (tenants.ts), never switch one another's requests:
 * - a ranch's own switch, once set, decides for that ranch's requests (its "off" too);
 * - the process-wide switch decides for every other request, and is the only one for callers
 *   that name no ranch (jest suites, benches, `--s3-put-fault`).
 * A request's ranch is the one it is about: an object key's (`public/<ranch>/…`,
 * `private/<identity id>/<ranch>/…`), an API path's (`/ranches/<ranch>/…`), else the ranch its
 * bearer token names (`custom:ranchid`).
 */
import { parseUploadKey } from '@trailsense/shared/object-key';

export interface RanchScoped<T> {
  /** The switch a request of `ranch` meets (undefined: a request about no ranch). */
  for(ranch: string | undefined): T;
  /** The switch to set: the ranch's own (made on first use), or the process-wide one (undefined). */
  own(ranch: string | undefined): T;
}

export function ranchScoped<T>(make: () => T, processWide: T = make()): RanchScoped<T> {
  const ranches = new Map<string, T>();
  return {
    for: (ranch) => (ranch === undefined ? undefined : ranches.get(ranch)) ?? processWide,
    own: (ranch) => {
      if (ranch === undefined) return processWide;
      const existing = ranches.get(ranch);
      if (existing !== undefined) return existing;
      const made = make();
      ranches.set(ranch, made);
      return made;
    },
  };
}

const decode = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The ranch of an S3 request on a path-style object path (`/<bucket>/<key>`, URL-encoded), or undefined. */
export function ranchOfObjectPath(path: string): string | undefined {
  const key = /^\/[^/]+\/(.+)$/.exec(path)?.[1];
  const decoded = key === undefined ? undefined : decode(key);
  return decoded === undefined ? undefined : parseUploadKey(decoded)?.ranchId;
}

/** The ranch of an API path (`/ranches/<ranch>[/…]`), or undefined. */
export function ranchOfApiPath(pathname: string): string | undefined {
  const [first, id] = pathname.split('/').filter(Boolean);
  return first === 'ranches' && id !== undefined ? decode(id) : undefined;
}

/**
 * The `custom:ranchid` a bearer token names, read without checking it: only to pick which
 * switch a request meets (the API checks the token itself), so a forged one can only choose a
 * test's fault for itself. Undefined when there is none or the header is not a JWT.
 */
export function ranchOfBearer(authorization: string | undefined): string | undefined {
  const payload = /^Bearer\s+[\w-]+\.([\w-]+)\.[\w-]*$/i.exec(authorization ?? '')?.[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const ranch = claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>)['custom:ranchid'] : undefined;
    return typeof ranch === 'string' && ranch !== '' ? ranch : undefined;
  } catch {
    return undefined;
  }
}
