import { useEffect, useMemo, useState } from 'react';
import { Authenticator } from '@aws-amplify/ui-react';
import {
  afterSignInPath,
  clearSignedOut,
  setPausedWorkNotice,
  tabStorage,
  useBrand,
  useConfig,
  useNavigation,
  usePausedWorkNotice,
  useUser,
  type LoginProps,
} from '@trailsense/shared';
import { AccountHelpDialog } from './account-help-dialog';
import { ForgetThisComputer } from './forget-this-computer';
import { KitWhenConfigured } from './kit-when-configured';
import { addAuthVocabulary, authenticatorComponents, authenticatorFormFields, authenticatorServices } from './authenticator-setup';
import { PasskeyOffer } from './passkey-offer';
import { emailCodeEnabled, passkeysEnabled } from '../../services/sign-in-choices';
// The kit's stylesheet: only the sheets of the kit components drawn here, in the kit's cascade
// layer (the module says which and why).
import './sign-in-kit-styles';
import page from '../../styles/auth.module.css';
import styles from './login.module.css';
// Shipped with the remote (an asset of its own build), so the standalone page shows it too.
import logoUrl from './logo.svg';

addAuthVocabulary();

/**
 * /login: the sign-in kit on the page's one Amplify instance. When the kit is done (a fresh
 * sign-in after any contact-verification step, or a session restored on start), the user moves
 * on (docs/product.md#after-sign-in-and-sign-out).
 */
export function LoginScreen({ returnTo }: LoginProps) {
  const brand = useBrand();
  const config = useConfig();
  // Work a lost session paused (the uploader's batch): why the user is here, and what signing in does.
  const paused = usePausedWorkNotice();
  const signUpEnabled = config.auth.signUpEnabled;
  // The pool's other sign-in choices add the kit's "Other sign-in options" link below the form.
  const withChoices = emailCodeEnabled() || passkeysEnabled();
  // What the kit's machine is configured with: sent by KitWhenConfigured, and passed to the
  // <Authenticator> too (which then finds its machine configured and sends nothing).
  const kitOptions = useMemo(
    () => ({
      initialState: 'signIn' as const,
      signUpAttributes: ['name' as const, 'phone_number' as const],
      formFields: authenticatorFormFields,
      services: authenticatorServices,
      // The password form stays first; the pool's other choices (an e-mailed code, a passkey;
      // Amplify's config says which) are under "Other sign-in options". The passkey offer is ours
      // (passkey-offer.tsx): after a code sign-in only, and once.
      passwordless: { preferredAuthMethod: 'PASSWORD' as const, passkeyRegistrationPrompts: false },
    }),
    [],
  );

  return (
    <div className={`${page.page} ${styles.login}`}>
      <img className={styles.logo} src={logoUrl} alt="" width={64} height={64} />
      <h1>Welcome to {brand.productName}</h1>
      {paused && (
        <p className={styles.paused} role="status">
          {paused}
        </p>
      )}
      <AccountHelpDialog productName={brand.productName} />
      {/* The kit draws nothing until it has asked Amplify for a session; its place is kept, so
          the page does not shrink and grow back (the shell's frame keeps the same place). */}
      <div className={[styles.kit, signUpEnabled && styles.withTabs, withChoices && styles.withChoices].filter(Boolean).join(' ')}>
        <Authenticator.Provider>
          <KitWhenConfigured options={kitOptions}>
            <Authenticator hideSignUp={!signUpEnabled} components={authenticatorComponents} {...kitOptions}>
              {() => <AfterSignIn returnTo={returnTo} />}
            </Authenticator>
          </KitWhenConfigured>
        </Authenticator.Provider>
      </div>
      <ForgetThisComputer />
    </div>
  );
}

/**
 * Rendered by the kit once it is done: waits for the user context, offers a passkey after a code
 * sign-in (passkey-offer.tsx, which may say it has nothing to offer), then goes where the user belongs.
 */
function AfterSignIn({ returnTo }: LoginProps) {
  const user = useUser();
  const { navigate } = useNavigation();
  const [offerDone, setOfferDone] = useState(false);
  const signedIn = user.status === 'authenticated' ? user.user : null;
  useEffect(() => {
    if (!signedIn || !offerDone) return;
    // Said to whoever signs in next; once someone has, the uploader speaks for itself.
    setPausedWorkNotice(null);
    // Whoever signed out before has had the offer to forget their history (forget-this-computer.tsx).
    clearSignedOut(tabStorage());
    navigate(afterSignInPath(signedIn, returnTo), { replace: true });
  }, [signedIn, offerDone, returnTo, navigate]);
  if (signedIn && !offerDone) return <PasskeyOffer userId={signedIn.sub} onDone={() => setOfferDone(true)} />;
  return <p role="status">Signed in. Taking you on…</p>;
}
