/** The lockout after repeated wrong passwords, on a fake clock. */
import { createLockout } from '../src/gateway/lockout';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('lockout', () => {
  it('locks after the fifth wrong password, for a time that doubles, and a success clears it', () => {
    const clock = fakeClock();
    const lockout = createLockout({ now: clock.now });
    for (let i = 0; i < 4; i++) lockout.fail('u');
    expect(lockout.isLocked('u')).toBe(false);
    lockout.fail('u');
    expect(lockout.isLocked('u')).toBe(true);
    expect(lockout.isLocked('someone-else')).toBe(false);
    clock.advance(999);
    expect(lockout.isLocked('u')).toBe(true);
    clock.advance(1);
    expect(lockout.isLocked('u')).toBe(false);
    lockout.fail('u'); // sixth: two seconds
    clock.advance(1999);
    expect(lockout.isLocked('u')).toBe(true);
    clock.advance(1);
    expect(lockout.isLocked('u')).toBe(false);
    lockout.succeed('u');
    lockout.fail('u');
    expect(lockout.isLocked('u')).toBe(false);
  });

  it('caps the lock at 15 minutes and bounds the users it tracks', () => {
    const clock = fakeClock();
    const lockout = createLockout({ now: clock.now, maxEntries: 2 });
    for (let i = 0; i < 60; i++) lockout.fail('u');
    clock.advance(15 * 60 * 1000 - 1);
    expect(lockout.isLocked('u')).toBe(true);
    clock.advance(1);
    expect(lockout.isLocked('u')).toBe(false);
    for (let i = 0; i < 5; i++) lockout.fail('a');
    for (let i = 0; i < 5; i++) lockout.fail('b');
    expect(lockout.isLocked('b')).toBe(true);
    expect(lockout.isLocked('u')).toBe(false);
  });
});
