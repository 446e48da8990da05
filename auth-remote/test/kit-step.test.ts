import { kitStep } from '../src/model/kit-step';

describe('kitStep', () => {
  it('waits while the kit asks Amplify for a session', () => {
    expect(kitStep('idle', false)).toBe('wait');
  });

  it('configures the kit once the session is known, before drawing it', () => {
    expect(kitStep('setup', false)).toBe('configure');
  });

  it('draws the kit on whatever screen configuring led to', () => {
    for (const route of ['signIn', 'signUp', 'authenticated', 'forgotPassword']) expect(kitStep(route, false)).toBe('show');
  });

  it('does nothing more once the kit is drawn: the kit moves between its own screens', () => {
    for (const route of ['idle', 'setup', 'signIn', 'confirmSignIn', 'authenticated']) expect(kitStep(route, true)).toBe('wait');
  });
});
