import { clockNotice, clockProblem, type ClockFinding } from '../src/features/upload/model/clock-check';

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

describe('clockNotice', () => {
  const finding = (name: string, problem: ClockFinding['problem'], capture?: string): ClockFinding =>
    capture ? { name, problem, capture: at(capture) } : { name, problem };

  it('is null without problems', () => {
    expect(clockNotice([])).toBeNull();
  });
  it('names one photo', () => {
    expect(clockNotice([finding('IMG_0001.JPG', 'future')])).toBe(
      "Check the camera's clock: 1 photo is dated in the future (IMG_0001.JPG). It can still be uploaded.",
    );
  });
  it('groups by problem, reset first, with the reset date', () => {
    const notice = clockNotice([
      finding('IMG_0001.JPG', 'future'),
      finding('IMG_0004.JPG', 'reset', '2013-01-01T00:00:05'),
      finding('IMG_0002.JPG', 'future'),
      finding('IMG_0005.JPG', 'reset', '2013-01-01T06:10:00'),
      finding('IMG_0003.JPG', 'future'),
      finding('IMG_0006.JPG', 'before-2010'),
    ]);
    expect(notice).toBe(
      "Check the camera's clock: 2 photos are dated January 1, 2013, a date cameras reset to when they lose power (IMG_0004.JPG, IMG_0005.JPG); " +
        '3 photos are dated in the future (IMG_0001.JPG, IMG_0002.JPG, IMG_0003.JPG); 1 photo is dated before 2010 (IMG_0006.JPG). They can still be uploaded.',
    );
  });
  it('names several reset dates in order, or none when unknown', () => {
    expect(clockNotice([finding('B.JPG', 'reset', '2013-01-01T01:00:00'), finding('A.JPG', 'reset', '2000-01-01T01:00:00')])).toBe(
      "Check the camera's clock: 2 photos are dated January 1, 2000 or January 1, 2013, dates cameras reset to when they lose power (B.JPG, A.JPG). They can still be uploaded.",
    );
    expect(clockNotice([finding('A.JPG', 'reset')])).toBe(
      "Check the camera's clock: 1 photo is dated on a date cameras reset to when they lose power (A.JPG). It can still be uploaded.",
    );
  });
  it('names at most 10 photos of a group, then how many more', () => {
    const many = Array.from({ length: 1203 }, (_, i) => finding(`IMG_${String(i + 1).padStart(4, '0')}.JPG`, 'future'));
    expect(clockNotice(many)).toBe(
      "Check the camera's clock: 1,203 photos are dated in the future (IMG_0001.JPG, IMG_0002.JPG, IMG_0003.JPG, IMG_0004.JPG, IMG_0005.JPG, " +
        'IMG_0006.JPG, IMG_0007.JPG, IMG_0008.JPG, IMG_0009.JPG, IMG_0010.JPG and 1,193 more). They can still be uploaded.',
    );
  });
});
