import { startTransition, useEffect, useState, type ReactNode } from 'react';
import { useAuthenticator } from '@aws-amplify/ui-react';
import { kitStep } from '../../model/kit-step';

/** Selects only the route: this component re-renders when the kit's screen changes, not on every keystroke. */
const byRoute = ({ route }: { route: string }) => [route];

/**
 * Inside the kit's `Authenticator.Provider`: configures the kit's machine with `options` (its
 * INIT, which the `<Authenticator>` would otherwise send itself), then draws `children` — the
 * `<Authenticator>` with the same options — as a transition.
 *
 * Why (docs/architecture.md#the-sign-in-kit-draws-as-a-transition): the kit follows its machine
 * through useSyncExternalStore, whose updates React renders synchronously, and flushes the
 * effects of such a render at once. Left alone, the machine's start, its INIT and the whole
 * sign-in form render in one task of 100–190 ms on a phone. Here the machine work is one task
 * and the form renders in a transition, which React splits into slices that yield to the browser.
 * The kit ignores the `<Authenticator>`'s own INIT once configured (its `shouldInitialize` guard).
 */
export function KitWhenConfigured({ options, children }: { options: Record<string, unknown>; children: ReactNode }) {
  const { route, initializeMachine } = useAuthenticator(byRoute);
  const [shown, setShown] = useState(false);
  const step = kitStep(route, shown);
  useEffect(() => {
    if (step === 'configure') initializeMachine(options);
    else if (step === 'show') startTransition(() => setShown(true));
  }, [step, options, initializeMachine]);
  return shown ? children : null;
}
