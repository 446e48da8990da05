/**
 * The uploads API's answers (infra/src/uploads-api/handler.ts; docs/product.md#product-api-responses):
 * the contract between the API, which builds them, and the uploader, which reads them. Types only.
 */

/** GET /ranches/{ranchid}/upload-metrics?yearmo=YYYY_MM, as the uploads API answers it. */
export interface UploadMetrics {
  /** The month's count the server enforces, as a string; "" while nothing is counted (the product API's contract). */
  total: string;
  /** The month asked for. */
  yearmo: string;
  /** The month photos count in now (UTC). */
  month: string;
  /** Slots held by live reservations of other members (the caller’s own are theirs to use). */
  reserved: number;
  /** The ranch's monthly ceiling. */
  ceiling: number;
}

/** What the uploader may rely on: `total` is the product API's original contract, the rest the uploads API's. */
export type UploadMetricsResponse = Pick<UploadMetrics, 'total'> & Partial<Omit<UploadMetrics, 'total'>>;

/** POST /ranches/{ranchid}/reservations. */
export interface ReservationResponse {
  /** Null when nothing was granted. */
  reservation: string | null;
  /** The month the granted photos count in. */
  yearmo: string;
  /** Fingerprints the ranch already has (from any device of any member). */
  known: string[];
  /** Fingerprints granted a slot, in the order asked. */
  granted: string[];
  expiresAt: string | null;
  lifetimeSeconds: number;
}

/** POST /ranches/{ranchid}/photo-lookups. */
export interface PhotoLookupResponse {
  /** The fingerprints asked that the ranch has. */
  known: string[];
  /** The file sizes asked that some photo of the ranch has. */
  knownSizes: number[];
}
