import { clockProblem } from '../src/features/upload/model/clock-check';

/** A capture time as the EXIF helper builds it: the camera's clock in the UTC fields. */
const at = (text: string): Date => new Date(`${text}Z`);
const now = Date.parse('2026-11-22T12:00:00Z');
const HOUR = 60 * 60 * 1000;

describe('clockProblem', () => {
  it('passes a normal date', () => {
    expect(clockProblem(at('2024-10-03T05:12:44'), now)).toBeNull();
    expect(clockProblem(at('2026-11-22T05:12:44'), now)).toBeNull();
  });
  it('allows a day of slack ahead of our clock', () => {
    expect(clockProblem(new Date(now + 23 * HOUR), now)).toBeNull();
    expect(clockProblem(new Date(now + 24 * HOUR), now)).toBeNull();
  });
  it('flags a capture more than a day in the future', () => {
    expect(clockProblem(new Date(now + 24 * HOUR + 1000), now)).toBe('future');
    expect(clockProblem(at('2031-06-01T10:00:00'), now)).toBe('future');
  });
  it('flags a year before 2010', () => {
    expect(clockProblem(at('2009-12-31T23:59:59'), now)).toBe('before-2010');
    expect(clockProblem(at('2005-06-15T08:00:00'), now)).toBe('before-2010');
    expect(clockProblem(at('2010-01-02T00:00:00'), now)).toBeNull();
  });
  it('flags a reset day, before the other problems', () => {
    expect(clockProblem(at('2013-01-01T00:03:10'), now)).toBe('reset');
    expect(clockProblem(at('2000-01-01T07:00:00'), now)).toBe('reset');
    expect(clockProblem(at('1970-01-01T00:00:00'), now)).toBe('reset');
    expect(clockProblem(at('2013-01-02T00:03:10'), now)).toBeNull();
  });
  it('reads the camera clock (UTC fields), not the local day', () => {
    expect(clockProblem(at('2012-12-31T23:30:00'), now)).toBeNull();
    expect(clockProblem(at('2013-01-01T23:30:00'), now)).toBe('reset');
  });
  it('has nothing to say of an invalid date', () => {
    expect(clockProblem(new Date(Number.NaN), now)).toBeNull();
  });
});
