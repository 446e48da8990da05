import type { ReactNode } from 'react';
import { useBrand, useConfig, type RemoteModuleId, type RuntimeConfig } from '@trailsense/shared';
import { LoadingState } from '../app/loading-state';

/**
 * /login before the sign-in kit arrives: the page as auth-remote draws it (logo, heading, the
 * account-help line) with the form's place kept, so it paints with the HTML (the prerender writes
 * it into login.html) and nothing moves when the remote's screen replaces it. Its sizes follow
 * auth-remote/src/features/login/ (login.module.css, auth.module.css); the form's reserved height
 * is the kit's sign-in form (docs/architecture.md#the-sign-in-route-frame).
 */
export function LoginFrame() {
  const brand = useBrand();
  // With sign-up on, the kit's form has its Sign In / Create Account tabs above it; with the
  // pool's other sign-in choices, its "Other sign-in options" link below.
  const { signUpEnabled, passwordless } = useConfig().auth;
  const choices = passwordless.emailCode || passwordless.passkeys;
  return (
    <>
      <div className="login-frame" aria-busy="true">
        <img className="login-frame__logo" src="/logo.svg" alt="" width={64} height={64} />
        <h1>Welcome to {brand.productName}</h1>
        {/* The remote's button opens a dialog; until it is here the line is plain text in its place. */}
        <p className="login-frame__help">How do I create an account?</p>
        <div className={['login-frame__form', signUpEnabled && 'login-frame__form--tabs', choices && 'login-frame__form--choices'].filter(Boolean).join(' ')}>
          <LoadingState label="Loading the sign-in form…" />
        </div>
      </div>
      {/* The place of the release line every remote screen ends with (RemoteFrame). */}
      <p className="remote-frame__release" aria-hidden="true">
        {'\u00a0'}
      </p>
    </>
  );
}

/**
 * The uploader and the profile are taller than a phone's screen: while they load, the loading line
 * keeps the footer below the fold, so their arrival moves nothing the visitor sees (it used to
 * jump from the bottom of the screen out of it: CLS 0.07 on /uploader, 0.15 on /profile).
 */
function TallLoading({ label }: { label: string }) {
  return (
    <div className="loading-state--screen">
      <LoadingState label={label} />
    </div>
  );
}

/**
 * Which frame a config draws, beyond what every page shares (the brand): a prerendered frame is
 * hydrated only by a page whose config draws the same one (scripts/prerender.mjs writes it as the
 * root's `data-frame`); otherwise the page renders afresh.
 */
export function frameVariant(config: RuntimeConfig): string {
  const { signUpEnabled, passwordless } = config.auth;
  const form = signUpEnabled ? 'sign-up' : 'sign-in';
  return passwordless.emailCode || passwordless.passkeys ? `${form}+choices` : form;
}

/** What a remote route shows while its module loads, where it has more than a loading line. */
export const routeFrames: Partial<Record<RemoteModuleId, () => ReactNode>> = {
  'auth/Login': () => <LoginFrame />,
  'uploader/Uploader': () => <TallLoading label="Loading the uploader…" />,
  'auth/Profile': () => <TallLoading label="Loading your profile…" />,
};
