import type { AuthEvent, SessionSource, UserAttributes } from '@trailsense/shared';

/**
 * A session source for component tests: the test decides who is signed in and fires auth
 * events, so no test has to mock Amplify.
 */
export class FakeSessionSource implements SessionSource {
  private listeners = new Set<(event: AuthEvent) => void>();
  signOutCalls: { global?: boolean }[] = [];

  constructor(public user: UserAttributes | null = null) {}

  async currentUser() {
    return this.user;
  }

  deleteCalls = 0;
  /** Set to make the next deleteAccount fail. */
  deleteError: Error | null = null;

  async deleteAccount() {
    if (this.deleteError) throw this.deleteError;
    this.deleteCalls++;
    this.user = null;
    this.emit('signedOut');
  }

  /** Set to make the next signOut fail (the session stays). */
  signOutError: Error | null = null;

  async signOut(options?: { global?: boolean }) {
    this.signOutCalls.push(options ?? {});
    if (this.signOutError) throw this.signOutError;
    this.user = null;
    this.emit('signedOut');
  }

  onAuthEvent(listener: (event: AuthEvent) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: AuthEvent) {
    for (const listener of this.listeners) listener(event);
  }
}

export const subscriberUser: UserAttributes = {
  sub: '6f1c2d3e-0000-4000-8000-000000000001',
  email: 'subscriber@trailsense.example',
  ranchId: 'cedar-creek',
  name: 'Sam Subscriber',
};
