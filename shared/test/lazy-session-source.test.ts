import { lazySessionSource } from '../src/user/lazy-session-source';
import type { AuthEvent, SessionSource } from '../src/user/session-source';

class RealSource implements SessionSource {
  listeners = new Set<(event: AuthEvent) => void>();
  signOuts = 0;
  constructor(public user: { sub: string; email: string } | null) {}
  async currentUser() {
    return this.user;
  }
  async signOut() {
    this.signOuts++;
  }
  async deleteAccount() {}
  onAuthEvent(listener: (event: AuthEvent) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: AuthEvent) {
    for (const listener of this.listeners) listener(event);
  }
}

describe('lazySessionSource', () => {
  it('answers "nobody" without loading the real source when no session is stored', async () => {
    const load = jest.fn(async () => new RealSource(null));
    const source = lazySessionSource(load, () => false);
    expect(await source.currentUser()).toBeNull();
    expect(load).not.toHaveBeenCalled();
  });

  it('loads the real source, once, when a session is stored', async () => {
    const real = new RealSource({ sub: 'u-1', email: 'a@example.com' });
    const load = jest.fn(async () => real);
    const source = lazySessionSource(load, () => true);
    const [first, second] = await Promise.all([source.currentUser(), source.currentUser()]);
    expect(first).toEqual({ sub: 'u-1', email: 'a@example.com' });
    expect(second).toEqual(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('attaches listeners registered before the load, and detaches them', async () => {
    const real = new RealSource(null);
    const source = lazySessionSource(
      async () => real,
      () => false,
    );
    const events: AuthEvent[] = [];
    const unsubscribe = source.onAuthEvent((event) => events.push(event));
    await source.load();
    real.emit('signedIn');
    unsubscribe();
    real.emit('signedOut');
    expect(events).toEqual(['signedIn']);
    expect(real.listeners.size).toBe(0);
  });

  it('asks the real source once it is loaded, even with nothing stored (a sign-in just happened)', async () => {
    const real = new RealSource({ sub: 'u-2', email: 'b@example.com' });
    const source = lazySessionSource(
      async () => real,
      () => false,
    );
    await source.load();
    expect(await source.currentUser()).toEqual({ sub: 'u-2', email: 'b@example.com' });
  });

  it('loads the real source to sign out', async () => {
    const real = new RealSource(null);
    const source = lazySessionSource(
      async () => real,
      () => false,
    );
    await source.signOut();
    expect(real.signOuts).toBe(1);
  });

  it('retries a failed load on the next call', async () => {
    const real = new RealSource({ sub: 'u-3', email: 'c@example.com' });
    const load = jest.fn<Promise<SessionSource>, []>().mockRejectedValueOnce(new Error('offline')).mockResolvedValue(real);
    const source = lazySessionSource(load, () => true);
    await expect(source.currentUser()).rejects.toThrow('offline');
    expect(await source.currentUser()).toEqual({ sub: 'u-3', email: 'c@example.com' });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
