/**
 * `@trailsense/shared/aws`: the part of the shared package that needs Amplify or the API client
 * (a federation singleton of its own). Kept apart from `@trailsense/shared` so that the marketing
 * pages, which import only the light entry, never download Amplify or ky: a shared module is
 * bundled whole. Modules here import the light entry by its package name, never by a relative
 * path, so contexts and other stateful modules exist once per page.
 */
export { configureAmplifyOnce } from './amplify/configure';
export { amplifySessionSource } from './user/amplify-session-source';
export { watchSessionEnd, isStoredSessionRemoved, type SessionEndReason, type StorageChange } from './user/session-end';
export {
  openUploadJournal,
  JOURNAL_RETENTION_MS,
  OTHER_USERS_RETENTION_MS,
  JOURNAL_DB_NAME,
  type UploadJournal,
  type JournalEntry,
  type JournalBatch,
  type JournalStatus,
  type JournalTarget,
  type JournalScope,
  type BatchSummary,
} from './uploads/upload-journal';
export { startStandalone, type StandaloneOptions } from './remote-kit/standalone';
export {
  createProductApi,
  createUploadsApi,
  normaliseError,
  type ProductApi,
  type UploadsApi,
  type ReservationResponse,
  type ProductApiOptions,
  type SubscriptionResponse,
  type UploadMetricsResponse,
  type RanchResponse,
  type CamerasResponse,
  type Camera,
} from './api/api-client';
export { ApiRequestError, type ApiError } from './api/api-error';
export { amplifyIdToken } from './api/amplify-token';
export { createAnalytics, sandboxAnalytics, firehoseAnalytics, noAnalytics, type FirehoseModule } from './analytics/analytics';
