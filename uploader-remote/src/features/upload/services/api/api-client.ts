import ky, { HTTPError, TimeoutError, type KyInstance } from 'ky';
import { ApiRequestError, httpErrorMessage, retryAfterMs } from './api-error';
import type { PhotoLookupResponse, ReservationResponse, UploadMetricsResponse } from '@trailsense/shared/uploads-wire';

export { ApiRequestError, type ApiError } from './api-error';
export type { PhotoLookupResponse, ReservationResponse, UploadMetrics, UploadMetricsResponse } from '@trailsense/shared/uploads-wire';

/** docs/product.md#product-api-responses: GET /subscriptions/{email}. */
export interface SubscriptionResponse {
  subscriber: { entitlements: Record<string, { expires_date: string }> };
}
/** docs/product.md#product-api-responses: GET /ranches/{ranchid}. */
export interface RanchResponse {
  max_monthly_uploads: number;
}
/** docs/product.md#product-api-responses: one camera of GET /ranches/{ranchid}/cameras. */
export interface Camera {
  id: string;
  name: string;
}
export interface CamerasResponse {
  Cameras: Camera[];
}

/** The product API (docs/product.md#product-api). Every call rejects with an `ApiRequestError`. */
export interface ProductApi {
  getSubscription(email: string): Promise<SubscriptionResponse>;
  getRanch(ranchId: string): Promise<RanchResponse>;
  getCameras(ranchId: string): Promise<CamerasResponse>;
}

/**
 * The uploads API (this repository's, infra/src/uploads-api/handler.ts; infra/docs/server.md#the-uploads-api).
 * Every call rejects with an `ApiRequestError`.
 */
export interface UploadsApi {
  getUploadMetrics(ranchId: string, yearmo: string): Promise<UploadMetricsResponse>;
  /** Which of the photos the ranch already has, reserving nothing. */
  lookupPhotos(ranchId: string, fingerprints: readonly string[]): Promise<Pick<PhotoLookupResponse, 'known' | 'copies'>>;
  /** Which of these file sizes some photo of the ranch has (a file of another size cannot be one it has). */
  lookupSizes(ranchId: string, sizes: readonly number[]): Promise<Pick<PhotoLookupResponse, 'knownSizes'>>;
  /** Slots for the photos the ranch does not have yet (as many as its ceiling allows). */
  reserve(ranchId: string, fingerprints: readonly string[]): Promise<ReservationResponse>;
  renew(ranchId: string, reservation: string): Promise<{ reservation: string; expiresAt: string }>;
  release(ranchId: string, reservation: string): Promise<{ reservation: string; released: number }>;
}

export interface ProductApiOptions {
  /** `api.baseUrl` (the product API) or `api.uploadsBaseUrl` (the uploads API) of the runtime config. */
  baseUrl: string;
  /**
   * The bearer token: the Cognito **id token** (the API needs its email and custom:ranchid
   * claims; sandbox/README.md). Injected so tests and other hosts need no Amplify.
   */
  getIdToken: () => Promise<string | undefined>;
  /** For tests: a fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** Per-request timeout (ms). */
  timeout?: number;
}

/** Turns whatever a request threw into an `ApiRequestError` (`now`: for a `Retry-After` given as a date). */
export function normaliseError(error: unknown, now: number = Date.now()): ApiRequestError {
  if (error instanceof ApiRequestError) return error;
  if (error instanceof HTTPError) {
    const { status, statusText, headers } = error.response;
    const wait = retryAfterMs(headers.get('Retry-After'), now);
    // ky 2 has already read the body into `error.data` (JSON when the server sent JSON).
    return new ApiRequestError({
      kind: 'http',
      status,
      message: httpErrorMessage(status, statusText, error.data),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (error instanceof TimeoutError) return new ApiRequestError({ kind: 'timeout', message: 'The request timed out' });
  // docs/product.md#errors-from-calls: a NetworkError reads 'Network Error' (ky's own text names the URL, not the cause).
  if (error instanceof Error && (error.name === 'NetworkError' || error.name === 'TypeError')) {
    return new ApiRequestError({ kind: 'network', message: 'Network Error' });
  }
  return new ApiRequestError({ kind: 'network', message: error instanceof Error && error.message ? error.message : 'Network Error' });
}

/** ky with the bearer token (the id token) on every request. */
function bearerClient(options: ProductApiOptions): KyInstance {
  return ky.create({
    prefix: options.baseUrl,
    timeout: options.timeout ?? 20_000,
    // GETs are idempotent: ky retries network errors, 408/413/429/5xx twice with backoff.
    retry: { limit: 2 },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    hooks: {
      beforeRequest: [
        async ({ request }) => {
          const token = await options.getIdToken();
          if (!token) throw new ApiRequestError({ kind: 'unauthenticated', message: 'User is not authenticated' });
          request.headers.set('Authorization', `Bearer ${token}`);
        },
      ],
    },
  });
}

const seg = encodeURIComponent;

/** The one HTTP client of the product API: ky with the bearer token and error normalisation. */
export function createProductApi(options: ProductApiOptions): ProductApi {
  const client = bearerClient(options);
  const get = async <T>(path: string): Promise<T> => {
    try {
      return await client.get(path).json<T>();
    } catch (error) {
      throw normaliseError(error);
    }
  };
  return {
    getSubscription: (email) => get(`subscriptions/${seg(email)}`),
    getRanch: (ranchId) => get(`ranches/${seg(ranchId)}`),
    getCameras: (ranchId) => get(`ranches/${seg(ranchId)}/cameras`),
  };
}

/**
 * The uploads API's client (`baseUrl`: the runtime config's `api.uploadsBaseUrl`). GET and DELETE
 * are retried by ky (idempotent); a POST is not: a reservation asked twice would hold twice the
 * slots until they expire.
 */
export function createUploadsApi(options: ProductApiOptions): UploadsApi {
  const client = bearerClient(options);
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      throw normaliseError(error);
    }
  };
  const ranch = (ranchId: string) => `ranches/${seg(ranchId)}`;
  return {
    getUploadMetrics: (ranchId, yearmo) => call(() => client.get(`${ranch(ranchId)}/upload-metrics`, { searchParams: { yearmo } }).json()),
    lookupPhotos: (ranchId, fingerprints) => call(() => client.post(`${ranch(ranchId)}/photo-lookups`, { json: { fingerprints } }).json()),
    lookupSizes: (ranchId, sizes) => call(() => client.post(`${ranch(ranchId)}/photo-lookups`, { json: { sizes } }).json()),
    reserve: (ranchId, fingerprints) => call(() => client.post(`${ranch(ranchId)}/reservations`, { json: { fingerprints } }).json()),
    renew: (ranchId, reservation) => call(() => client.post(`${ranch(ranchId)}/reservations/${seg(reservation)}/renew`).json()),
    release: (ranchId, reservation) => call(() => client.delete(`${ranch(ranchId)}/reservations/${seg(reservation)}`).json()),
  };
}
