/**
 * `@trailsense/shared/session`: what the shell needs to know who is signed in, and nothing else:
 * Amplify configured once and the session source over it. /login imports this, not
 * `@trailsense/shared/aws`, so the sign-in page neither downloads nor evaluates the product API
 * client, the upload journal or analytics (docs/federation.md#shared-singletons). The modules
 * are the ones `@trailsense/shared/aws` exports, so each still exists once per page.
 */
export { configureAmplifyOnce } from './amplify/configure';
export { amplifySessionSource } from './user/amplify-session-source';
