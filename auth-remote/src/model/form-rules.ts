import { PASSWORD_MIN_LENGTH } from '@trailsense/shared';

/** Confirm-password mismatch is reported once both fields are this long, even before both are touched (docs/product.md#account-forms). */
export const CONFIRM_PASSWORD_THRESHOLD = 6;
/** The phone country code a form starts with (docs/product.md#account-forms). */
export const DEFAULT_DIAL_CODE = '+1';

/** The product's form messages (docs/product.md#account-forms). */
export const formMessages = {
  required: 'This field is required',
  passwordsMustMatch: 'Your passwords must match',
  terms: 'You must agree to the Terms & Conditions',
  passwordLength: (n: number) => `Password must have at least ${n} characters`,
  phone: 'Enter a phone number with its country code, like +12345678900',
} as const;

/** E.164: a +, then 8 to 15 digits (the expected shape is like +12345678900). */
const PHONE = /^\+[1-9]\d{7,14}$/;

/** Fields whose value is kept as typed: a password may begin or end with a space. */
const UNTRIMMED = new Set(['password', 'confirm_password', 'currentPassword', 'newPassword', 'confirmPassword']);

/** Trims every value except passwords (docs/product.md#account-forms). */
export function trimFormValues<T extends Record<string, string>>(values: T): T {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, UNTRIMMED.has(key) ? value : value.trim()])) as T;
}

/** Dial code plus number, with every character but letters, digits and + removed (docs/product.md#account-forms). */
export function normalizePhoneNumber(dialCode: string, number: string): string {
  return `${dialCode}${number}`.replace(/[^A-Za-z0-9+]/g, '');
}

/** Splits a stored E.164 number into one of the offered dial codes and the rest (for editing). */
export function splitPhoneNumber(phone: string | undefined, dialCodes: readonly string[]): { dialCode: string; number: string } {
  if (!phone) return { dialCode: DEFAULT_DIAL_CODE, number: '' };
  // The longest matching code wins (+1 vs +12…).
  const code = [...dialCodes].sort((a, b) => b.length - a.length).find((c) => phone.startsWith(c));
  return code ? { dialCode: code, number: phone.slice(code.length) } : { dialCode: '', number: phone };
}

export function requiredError(value: string): string | null {
  return value.trim() === '' ? formMessages.required : null;
}

export function phoneError(phone: string): string | null {
  return requiredError(phone) ?? (PHONE.test(phone) ? null : formMessages.phone);
}

/** The pool's policy: at least 8 characters, no required character classes (docs/product.md#account-forms). */
export function passwordError(password: string, minLength = PASSWORD_MIN_LENGTH): string | null {
  if (password === '') return formMessages.required;
  return password.length < minLength ? formMessages.passwordLength(minLength) : null;
}

/**
 * "Your passwords must match" when the two differ and either both fields were touched or both
 * are at least 6 characters long — so the message does not flash while the user is typing.
 */
export function confirmPasswordError(password: string, confirm: string, touched: { password?: boolean; confirm?: boolean }): string | null {
  if (password === confirm) return null;
  const bothTouched = Boolean(touched.password && touched.confirm);
  const bothLong = password.length >= CONFIRM_PASSWORD_THRESHOLD && confirm.length >= CONFIRM_PASSWORD_THRESHOLD;
  return bothTouched || bothLong ? formMessages.passwordsMustMatch : null;
}

/** The terms acknowledgement of the sign-up form. */
export function termsError(acknowledged: boolean): string | null {
  return acknowledged ? null : formMessages.terms;
}

/** Attributes a user may never send in an update (docs/product.md#account-forms): sub and any *_verified. */
export function updatableAttributes(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => key !== 'sub' && !key.endsWith('_verified')));
}

/** Only what changed, among what may be sent. */
export function changedAttributes(current: Record<string, string | undefined>, edited: Record<string, string>): Record<string, string> {
  return updatableAttributes(Object.fromEntries(Object.entries(edited).filter(([key, value]) => current[key] !== value)));
}
