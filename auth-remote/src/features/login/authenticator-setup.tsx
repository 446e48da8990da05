import { Authenticator, CheckboxField, useAuthenticator } from '@aws-amplify/ui-react';
import { signIn, type SignInInput } from 'aws-amplify/auth';
import { I18n } from 'aws-amplify/utils';
import { useBrand } from '@trailsense/shared';
import { termsError } from '../../model/form-rules';
import type { SignInMethod } from '../../model/passkeys';

/** Button labels as docs/product.md#sign-in-page spells them, and its error texts (docs/product.md#sign-in-kit-messages). */
const vocabulary: Record<string, string> = {
  'Sign in': 'Sign In',
  'Resend Code': 'Resend code',
  'A network error has occurred.': 'Network Error',
  // Sign-in choices beside the password (docs/product.md#sign-in-without-a-password).
  'Please enter your username first': 'Enter your email first',
  'Sign In with Email': 'Email me a sign-in code',
  'Sign In with Passkey': 'Sign In with a Passkey',
  'Passkey authentication ceremony has been canceled.':
    'No passkey was used: the prompt was closed, or this device has no passkey for this site. Try again, or choose another way to sign in.',
  'Passkey authentication was canceled. Please try again or use a different sign-in method.':
    'No passkey was used: the prompt was closed, or this device has no passkey for this site. Try again, or choose another way to sign in.',
  'Passkey operation has been aborted.':
    'No passkey was used: the prompt was closed, or this device has no passkey for this site. Try again, or choose another way to sign in.',
  'Passkeys may not be supported on this device.': 'This browser cannot use passkeys. Sign in with your password or an e-mailed code instead.',
  'Device failed to retrieve passkey.':
    'No passkey for this site was found on this device. Sign in with your password or an e-mailed code, then add one on your profile.',
  // The pool's answers to a code that can no longer be used (sandbox/src/gateway/user-auth.ts gives the same).
  'Invalid session for the user.': 'This code can no longer be used: it was tried too many times, or already used. Go back to sign in and ask for a new code.',
  'Relying party does not match current domain.': 'That passkey is not for this site. Sign in with your password or an e-mailed code.',
};

let vocabularyAdded = false;

/** Adds the product's wording to the sign-in kit; once per page (the I18n instance is shared). */
export function addAuthVocabulary(): void {
  if (vocabularyAdded) return;
  I18n.putVocabulariesForLanguage('en', vocabulary);
  vocabularyAdded = true;
}

/** The sign-up form's fields: the kit's, then the terms acknowledgement. */
function SignUpFormFields() {
  const { validationErrors } = useAuthenticator();
  const { termsUrl } = useBrand();
  const error = validationErrors.acknowledgement;
  return (
    <>
      <Authenticator.SignUp.FormFields />
      <CheckboxField
        errorMessage={typeof error === 'string' ? error : error?.join(' ')}
        hasError={Boolean(error)}
        name="acknowledgement"
        value="yes"
        label="I agree with the Terms & Conditions"
      />
      <a href={termsUrl} target="_blank" rel="noreferrer">
        Read the Terms &amp; Conditions (opens in a new tab)
      </a>
    </>
  );
}

export const authenticatorComponents = {
  SignUp: { FormFields: SignUpFormFields },
};

let lastMethod: SignInMethod | null = null;

/** Said when the account has no passkey with the pool (docs/product.md#sign-in-without-a-password). */
export const NO_PASSKEY = 'Your account has no passkey yet. Sign in with your password or an e-mailed code, then add a passkey on your profile.';

/** How the kit was last asked to sign in on this page (for the passkey offer after a code sign-in). */
export function lastSignInMethod(): SignInMethod | null {
  return lastMethod;
}

/** A kit sign-in's method: a USER_AUTH sign-in names its choice; the kit's password sign-in is SRP. */
function methodOf(input: SignInInput): SignInMethod | null {
  const options = input.options;
  if (options?.authFlowType !== 'USER_AUTH') return 'PASSWORD';
  const choice = options.preferredChallenge;
  return choice === 'EMAIL_OTP' || choice === 'WEB_AUTHN' || choice === 'PASSWORD' ? choice : null;
}

export const authenticatorServices = {
  /** The kit's sign-in, unchanged, noting which way the member chose (the kit calls it with the input only; its type is signIn's overloads). */
  handleSignIn: (async (input: SignInInput) => {
    lastMethod = methodOf(input);
    const result = await signIn(input);
    // The pool answers a passkey sign-in of an account without one by offering the other choices;
    // the kit would drop back to an empty form without a word. Say why, on the choices screen.
    if (lastMethod === 'WEB_AUTHN' && result.nextStep.signInStep === 'CONTINUE_SIGN_IN_WITH_FIRST_FACTOR_SELECTION') {
      throw Object.assign(new Error(NO_PASSKEY), { name: 'NoPasskeyForAccount' });
    }
    return result;
  }) as typeof signIn,
  /** Runs beside the kit's own checks (required fields, password policy, passwords match). */
  validateCustomSignUp(formData: Record<string, unknown>): Promise<Record<string, string>> {
    const terms = termsError(Boolean(formData.acknowledgement));
    return Promise.resolve<Record<string, string>>(terms ? { acknowledgement: terms } : {});
  },
};

/** Field order and hints; the phone dial code starts at +1 (docs/product.md#account-and-sign-in-constants). */
export const authenticatorFormFields = {
  signIn: {
    username: { label: 'Email', placeholder: 'Enter your email', isRequired: true, autocomplete: 'username' },
  },
  signUp: {
    email: { order: 1, isRequired: true },
    name: { order: 2, label: 'Name', placeholder: 'Enter your name', isRequired: true },
    phone_number: { order: 3, dialCode: '+1', isRequired: true },
    password: { order: 4 },
    confirm_password: { order: 5 },
  },
};
