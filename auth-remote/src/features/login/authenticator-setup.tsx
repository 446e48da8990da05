import { Authenticator, CheckboxField, useAuthenticator } from '@aws-amplify/ui-react';
import { I18n } from 'aws-amplify/utils';
import { useBrand } from '@trailsense/shared';
import { termsError } from '../../model/form-rules';

/** Button labels as docs/product.md#sign-in-page spells them, and its error texts (docs/product.md#sign-in-kit-messages). */
const vocabulary: Record<string, string> = {
  'Sign in': 'Sign In',
  'Resend Code': 'Resend code',
  'A network error has occurred.': 'Network Error',
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

export const authenticatorServices = {
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
