/**
 * What /login does next with the sign-in kit, from the kit's route and whether the kit is drawn
 * (auth-remote/src/features/login/kit-when-configured.tsx;
 * docs/architecture.md#the-sign-in-kit-draws-as-a-transition):
 * - `wait`: the kit is still asking Amplify for a session (`idle`), or it is drawn already;
 * - `configure`: the session is known (`setup`): send the kit its options;
 * - `show`: the kit is configured (any later route: sign in, authenticated, …): draw it.
 */
export type KitStep = 'wait' | 'configure' | 'show';

export function kitStep(route: string, shown: boolean): KitStep {
  if (shown || route === 'idle') return 'wait';
  if (route === 'setup') return 'configure';
  return 'show';
}
