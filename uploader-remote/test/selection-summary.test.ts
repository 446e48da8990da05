import { captureRange, durationText, selectionSummary } from '../src/features/upload/model/selection-summary';

const at = (text: string): Date => new Date(`${text}Z`);
const GB = 1024 ** 3;
const MB = 1024 ** 2;

describe('selectionSummary', () => {
  it('reads like the sample', () => {
    const bytes = Math.round(6.2 * GB);
    expect(
      selectionSummary({
        count: 2431,
        bytes,
        first: at('2024-10-03T05:12:44'),
        last: at('2024-11-19T18:01:00'),
        cameras: 2,
        bytesPerSecond: bytes / (48 * 60),
      }),
    ).toBe('2,431 photos · 6.2 GB · Oct 3 – Nov 19 · 2 cameras · about 48 min at your recent speed');
  });
  it('says the time is at the upload speed chosen when the member’s cap holds it', () => {
    expect(selectionSummary({ count: 12, bytes: 40 * MB, cameras: 0, bytesPerSecond: (40 * MB) / 3600, capped: true })).toBe(
      '12 photos · 40.0 MB · about 1 h at the upload speed chosen',
    );
  });
  it('says "1 photo" and "1 camera"', () => {
    expect(selectionSummary({ count: 1, bytes: 4.2 * MB, first: at('2024-10-03T05:12:44'), last: at('2024-10-03T05:12:44'), cameras: 1 })).toBe(
      '1 photo · 4.2 MB · Oct 3 · 1 camera',
    );
  });
  it('leaves out what is not known: dates, cameras, speed', () => {
    expect(selectionSummary({ count: 12, bytes: 40 * MB, cameras: 0 })).toBe('12 photos · 40.0 MB');
    expect(selectionSummary({ count: 12, bytes: 40 * MB, cameras: 0, bytesPerSecond: null })).toBe('12 photos · 40.0 MB');
    expect(selectionSummary({ count: 12, bytes: 40 * MB, cameras: 0, bytesPerSecond: 0 })).toBe('12 photos · 40.0 MB');
  });
  it('shows the years when the dates cross one', () => {
    expect(selectionSummary({ count: 300, bytes: 900 * MB, first: at('2024-12-28T07:00:00'), last: at('2025-01-03T19:00:00'), cameras: 1 })).toBe(
      '300 photos · 900.0 MB · Dec 28, 2024 – Jan 3, 2025 · 1 camera',
    );
  });
});

describe('captureRange', () => {
  it('uses the camera clock (UTC fields), in order, one date when only one is known', () => {
    expect(captureRange(at('2024-10-03T23:59:59'), at('2024-10-03T00:00:00'))).toBe('Oct 3');
    expect(captureRange(at('2024-11-19T01:00:00'), at('2024-10-03T23:00:00'))).toBe('Oct 3 – Nov 19');
    expect(captureRange(undefined, at('2024-10-03T23:00:00'))).toBe('Oct 3');
    expect(captureRange(new Date(Number.NaN), undefined)).toBeNull();
    expect(captureRange()).toBeNull();
  });
});

describe('durationText', () => {
  it('rounds as roughly as an estimate deserves', () => {
    expect(durationText(0)).toBe('less than a minute');
    expect(durationText(59)).toBe('less than a minute');
    expect(durationText(60)).toBe('about 1 min');
    expect(durationText(89)).toBe('about 1 min');
    expect(durationText(48 * 60 + 20)).toBe('about 48 min');
    expect(durationText(59 * 60 + 40)).toBe('about 1 h');
    expect(durationText(2 * 3600 + 9 * 60)).toBe('about 2 h 10 min');
    expect(durationText(2 * 3600 + 13 * 60)).toBe('about 2 h 15 min');
    expect(durationText(9 * 3600 + 58 * 60)).toBe('about 10 h');
    expect(durationText(26 * 3600 + 20 * 60)).toBe('about 26 h');
  });
  it('treats negative as none and the impossible as unknown', () => {
    expect(durationText(-5)).toBe('less than a minute');
    expect(durationText(Number.POSITIVE_INFINITY)).toBe('—');
    expect(durationText(Number.NaN)).toBe('—');
  });
});
