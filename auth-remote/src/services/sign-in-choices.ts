import { Amplify } from 'aws-amplify';

/**
 * The pool's sign-in choices beside the password, as the shell configured the page's one Amplify
 * (shared/src/amplify/amplify-config.ts from the config's auth.passwordless). Read from Amplify,
 * not the config type, so this remote runs on a shell that predates the choices: there, none.
 */
function choices(): { emailOtpEnabled?: boolean; webAuthn?: unknown } | undefined {
  return Amplify.getConfig().Auth?.Cognito?.passwordless;
}

export function passkeysEnabled(): boolean {
  return Boolean(choices()?.webAuthn);
}

export function emailCodeEnabled(): boolean {
  return choices()?.emailOtpEnabled === true;
}
