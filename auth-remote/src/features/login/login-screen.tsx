import { useEffect } from 'react';
import { Authenticator } from '@aws-amplify/ui-react';
import { afterSignInPath, setPausedWorkNotice, useBrand, useConfig, useNavigation, usePausedWorkNotice, useUser, type LoginProps } from '@trailsense/shared';
import { AccountHelpDialog } from './account-help-dialog';
import {
  addAuthVocabulary,
  authenticatorComponents,
  authenticatorFormFields,
  authenticatorServices,
} from './authenticator-setup';
import '@aws-amplify/ui-react/styles.css';
import '../../styles/auth.css';

addAuthVocabulary();

/**
 * /login: the sign-in kit on the page's one Amplify instance. When the kit is done (a fresh
 * sign-in after any contact-verification step, or a session restored on start), the user moves
 * on (SPEC.md §4).
 */
export function LoginScreen({ returnTo }: LoginProps) {
  const brand = useBrand();
  const config = useConfig();
  // Work a lost session paused (the uploader's batch): why the user is here, and what signing in does.
  const paused = usePausedWorkNotice();

  return (
    <div className="auth-page login-page">
      <img className="login-page__logo" src="/logo.svg" alt="" width={64} height={64} />
      <h1>Welcome to {brand.productName}</h1>
      {paused && (
        <p className="login-page__paused" role="status">
          {paused}
        </p>
      )}
      <AccountHelpDialog productName={brand.productName} />
      <Authenticator
        initialState="signIn"
        hideSignUp={!config.auth.signUpEnabled}
        signUpAttributes={['name', 'phone_number']}
        formFields={authenticatorFormFields}
        components={authenticatorComponents}
        services={authenticatorServices}
      >
        {() => <AfterSignIn returnTo={returnTo} />}
      </Authenticator>
    </div>
  );
}

/** Rendered by the kit once it is done: waits for the user context, then goes where the user belongs. */
function AfterSignIn({ returnTo }: LoginProps) {
  const user = useUser();
  const { navigate } = useNavigation();
  useEffect(() => {
    if (user.status !== 'authenticated') return;
    // Said to whoever signs in next; once someone has, the uploader speaks for itself.
    setPausedWorkNotice(null);
    navigate(afterSignInPath(user.user, returnTo), { replace: true });
  }, [user, returnTo, navigate]);
  return <p role="status">Signed in. Taking you on…</p>;
}
