// Moved to shared/src/uploads/wire.ts (`@trailsense/shared/uploads-wire`), the one module of the
// uploader-server wire; this re-export goes once every importer has moved.
export type { PhotoLookupResponse, ReservationResponse, UploadMetrics, UploadMetricsResponse } from '../uploads/wire';
