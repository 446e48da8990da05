import ky, { HTTPError, TimeoutError, type KyInstance } from 'ky';
import { ApiRequestError, httpErrorMessage } from './api-error';

/** docs/product.md#product-api-responses: GET /subscriptions/{email}. */
export interface SubscriptionResponse {
  subscriber: { entitlements: Record<string, { expires_date: string }> };
}
/** docs/product.md#product-api-responses: GET /ranches/{ranchid}/upload-metrics?yearmo=YYYY_MM; `total` may be "". */
export interface UploadMetricsResponse {
  total: string;
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
  getUploadMetrics(ranchId: string, yearmo: string): Promise<UploadMetricsResponse>;
  getRanch(ranchId: string): Promise<RanchResponse>;
  getCameras(ranchId: string): Promise<CamerasResponse>;
}

export interface ProductApiOptions {
  /** `api.baseUrl` of the runtime config. */
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

/** Turns whatever a request threw into an `ApiRequestError`. */
export function normaliseError(error: unknown): ApiRequestError {
  if (error instanceof ApiRequestError) return error;
  if (error instanceof HTTPError) {
    const { status, statusText } = error.response;
    // ky 2 has already read the body into `error.data` (JSON when the server sent JSON).
    return new ApiRequestError({ kind: 'http', status, message: httpErrorMessage(status, statusText, error.data) });
  }
  if (error instanceof TimeoutError) return new ApiRequestError({ kind: 'timeout', message: 'The request timed out' });
  // docs/product.md#errors-from-calls: a NetworkError reads 'Network Error' (ky's own text names the URL, not the cause).
  if (error instanceof Error && (error.name === 'NetworkError' || error.name === 'TypeError')) {
    return new ApiRequestError({ kind: 'network', message: 'Network Error' });
  }
  return new ApiRequestError({ kind: 'network', message: error instanceof Error && error.message ? error.message : 'Network Error' });
}

/** The one HTTP client of the product API: ky with the bearer token and error normalisation. */
export function createProductApi(options: ProductApiOptions): ProductApi {
  const client: KyInstance = ky.create({
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
  const get = async <T>(path: string, searchParams?: Record<string, string>): Promise<T> => {
    try {
      return await client.get(path, searchParams ? { searchParams } : {}).json<T>();
    } catch (error) {
      throw normaliseError(error);
    }
  };
  const seg = encodeURIComponent;
  return {
    getSubscription: (email) => get(`subscriptions/${seg(email)}`),
    getUploadMetrics: (ranchId, yearmo) => get(`ranches/${seg(ranchId)}/upload-metrics`, { yearmo }),
    getRanch: (ranchId) => get(`ranches/${seg(ranchId)}`),
    getCameras: (ranchId) => get(`ranches/${seg(ranchId)}/cameras`),
  };
}
