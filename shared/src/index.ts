/**
 * The shared package's light entry: one copy per page (a federation singleton), imported by the
 * shell and every remote. Nothing here imports Amplify or ky, so the marketing pages can use it;
 * what needs them is in `@trailsense/shared/aws`.
 *
 * Only what the shell provides at run time is here (its version is the singleton's): no wire,
 * event or schema. Those are imported by their subpaths (`/analytics-events`, `/uploads-wire`,
 * `/object-key`, `/quota`, …) and bundled into each app that uses them, so a change to one is
 * released with that app (docs/federation.md#shared-singletons; scripts/shared-version.mjs
 * fails when an entry the shell provides reaches one).
 */
export type { RuntimeConfig, Brand, AuthConfig, StorageConfig, ApiConfig, AnalyticsConfig, RemotesConfig } from './config/types';
export { parseRuntimeConfig, type ConfigResult } from './config/validate';
export { loadRuntimeConfig, CONFIG_URL } from './config/load';
export { ConfigProvider, useConfig } from './config/config-context';
export { defaultBrand, copyrightYear, fillBrand } from './brand/brand';
export { BrandProvider, useBrand } from './brand/brand-context';
export { toAmplifyConfig, PASSWORD_MIN_LENGTH } from './amplify/amplify-config';
export { userFromIdTokenClaims, type UserAttributes } from './user/user-attributes';
export type { UserState, AuthStatus, UserContextValue, SignOutReason } from './user/user-state';
export type { SessionSource, AuthEvent } from './user/session-source';
export { UserProvider, useUser, type UserProviderProps } from './user/user-context';
export { signedOutUser, clearSignedOut, tabStorage, type SignedOutUser } from './user/signed-out-hint';
export { readSessionHint, hasStoredSession, type SessionHint, type HintStorage } from './user/session-hint';
export { lazySessionSource, type LazySessionSource } from './user/lazy-session-source';
export { NavigationProvider, useNavigation, AppLink, type Navigation, type AppLinkProps } from './navigation/navigation';
export { guardDecision, afterSignInPath, loginPathFor, safeReturnPath, LOGIN_PATH, RETURN_TO_PARAM, type GuardDecision } from './domain/auth-routing';
export {
  remoteNames,
  type RemoteModules,
  type RemoteModuleId,
  type ExposedModule,
  type LoginProps,
  type ProfileProps,
  type DeleteAccountProps,
  type UploaderProps,
} from './contracts/remote-contracts';
export { sharedInstanceId } from './instance';
export { addLeaveGuard, activeLeaveMessage, confirmLeave, useLeaveGuard } from './navigation/leave-guard';
export { setPausedWorkNotice, pausedWorkNotice, usePausedWorkNotice } from './navigation/paused-work';
export { RemoteFrame, type RemoteFrameProps } from './remote-kit/remote-frame';
