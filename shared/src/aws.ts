/**
 * `@trailsense/shared/aws`: the part of the shared package that needs Amplify (a federation
 * singleton of its own). Kept apart from `@trailsense/shared` so that the marketing pages, which
 * import only the light entry, never download Amplify: a shared module is bundled whole. Modules
 * here import the light entry by its package name, never by a relative path, so contexts and
 * other stateful modules exist once per page.
 *
 * Only what must be one instance on the page, or is a contract between apps, is here: Amplify
 * configured once, the session over it, and the upload journal's owner contract. What one app
 * uses lives in that app (the uploader's journal, API clients and analytics are in
 * uploader-remote): the shell's copy of this module is what every remote runs
 * (docs/federation.md#released-alone-or-together).
 */
export { configureAmplifyOnce } from './amplify/configure';
export { amplifySessionSource } from './user/amplify-session-source';
export { watchSessionEnd, isStoredSessionRemoved, type SessionEndReason, type StorageChange } from './user/session-end';
export { journalOwners, JOURNAL_DB_NAME, OWNER_INDEX, type JournalOwners } from './uploads/journal-owners';
export { startStandalone, type StandaloneOptions } from './remote-kit/standalone';
