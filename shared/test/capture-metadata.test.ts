/**
 * @jest-environment node
 */
// The wire's capture correction and turn (src/uploads/wire.ts): what the uploader writes, and what
// the object-created function accepts.
import {
  captureCorrectionOf,
  captureCorrectionSeconds,
  formatCaptureCorrection,
  MAX_CAPTURE_CORRECTION_SECONDS,
  METADATA,
  photoTurnOf,
} from '../src/uploads/wire';

/** A camera that restarted at 2000-01-01, corrected to the day it was set out. */
const CAMERA = '2000-01-01T00:00:00';
const CORRECTED = '2026-01-01T00:00:00';
const SECONDS = 820540800;

const corrected = (captureTime: string | undefined, cameraCaptureTime: string | undefined, correction: string | undefined) =>
  captureCorrectionOf({
    [METADATA.captureTime]: captureTime,
    [METADATA.cameraCaptureTime]: cameraCaptureTime,
    [METADATA.captureCorrection]: correction,
  });

describe('captureCorrectionSeconds', () => {
  it('is the difference of the two wall clocks, across leap days and years before 100', () => {
    expect(captureCorrectionSeconds(CORRECTED, CAMERA)).toBe(SECONDS);
    expect(captureCorrectionSeconds('2024-03-01T00:00:00', '2024-02-28T23:00:00')).toBe(25 * 3600);
    expect(captureCorrectionSeconds('2026-10-03T04:12:44-05:00', '2026-10-03T05:12:44-05:00')).toBe(-3600);
    expect(captureCorrectionSeconds('0050-01-02T00:00:00', '0050-01-01T00:00:00')).toBe(86400);
    expect(captureCorrectionSeconds(CAMERA, CAMERA)).toBe(0);
  });

  it('is null for a value out of the form, a time that does not exist, or offsets that differ', () => {
    for (const bad of [
      '2026-01-01 00:00:00',
      '2026-01-01T00:00',
      '2026-02-30T00:00:00',
      '2026-13-01T00:00:00',
      '2026-01-01T24:00:00',
      '0000-01-01T00:00:00',
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00+15:00',
      '2026-01-01T00:00:00+0500',
    ]) {
      expect([bad, captureCorrectionSeconds(bad, CAMERA), captureCorrectionSeconds(CORRECTED, bad)]).toEqual([bad, null, null]);
    }
    expect(captureCorrectionSeconds(`${CORRECTED}-05:00`, CAMERA)).toBeNull();
    expect(captureCorrectionSeconds(`${CORRECTED}-05:00`, `${CAMERA}-06:00`)).toBeNull();
  });
});

describe('formatCaptureCorrection', () => {
  it('writes an explicit sign, and refuses zero, fractions and more than 100 years', () => {
    expect(formatCaptureCorrection(SECONDS)).toBe('+820540800');
    expect(formatCaptureCorrection(-3600)).toBe('-3600');
    expect(formatCaptureCorrection(MAX_CAPTURE_CORRECTION_SECONDS)).toBe('+3155760000');
    for (const bad of [0, 1.5, NaN, Infinity, MAX_CAPTURE_CORRECTION_SECONDS + 1, -MAX_CAPTURE_CORRECTION_SECONDS - 1]) {
      expect(() => formatCaptureCorrection(bad)).toThrow(RangeError);
    }
  });
});

describe('captureCorrectionOf', () => {
  it('is none without either correction key, whatever capture_time says', () => {
    expect(corrected(CORRECTED, undefined, undefined)).toEqual({ kind: 'none' });
    expect(corrected(undefined, undefined, undefined)).toEqual({ kind: 'none' });
    expect(corrected('not a time', undefined, undefined)).toEqual({ kind: 'none' });
  });

  it('reads a correction that adds up, with or without the (shared) offset, either way', () => {
    expect(corrected(CORRECTED, CAMERA, '+820540800')).toEqual({
      kind: 'corrected',
      captureTime: CORRECTED,
      cameraCaptureTime: CAMERA,
      offsetSeconds: SECONDS,
    });
    expect(corrected('2026-10-03T04:12:44-05:00', '2026-10-03T05:12:44-05:00', '-3600')).toMatchObject({ kind: 'corrected', offsetSeconds: -3600 });
    expect(corrected(CORRECTED, CAMERA, formatCaptureCorrection(captureCorrectionSeconds(CORRECTED, CAMERA)!))).toMatchObject({ kind: 'corrected' });
  });

  it.each([
    ['camera_capture_time alone', CORRECTED, CAMERA, undefined],
    ['capture_correction alone', CORRECTED, undefined, '+820540800'],
    ['both without capture_time', undefined, CAMERA, '+820540800'],
    ['a correction without its sign', CORRECTED, CAMERA, '820540800'],
    ['a zero correction', CAMERA, CAMERA, '+0'],
    ['a correction with leading zeros', CORRECTED, CAMERA, '+0820540800'],
    ['a fraction', CORRECTED, CAMERA, '+820540800.0'],
    ['an empty correction', CORRECTED, CAMERA, ''],
    ['a correction beyond 100 years', '2126-01-02T00:00:00', '2000-01-01T00:00:00', '+3976300800'],
    ['a correction that does not add up', CORRECTED, CAMERA, '+820540801'],
    ['a correction of the other sign', CAMERA, CORRECTED, '+820540800'],
    ['a camera time out of the form', CORRECTED, '2000:01:01 00:00:00', '+820540800'],
    ['a capture time that does not exist', '2026-02-30T00:00:00', CAMERA, '+820540800'],
    ['offsets that differ', `${CORRECTED}-05:00`, `${CAMERA}-06:00`, '+820540800'],
    ['an offset on one time only', `${CORRECTED}-05:00`, CAMERA, '+820540800'],
  ])('is malformed: %s', (_, captureTime, cameraCaptureTime, correction) => {
    expect(corrected(captureTime, cameraCaptureTime, correction)).toEqual({ kind: 'malformed' });
  });
});

describe('photoTurnOf', () => {
  it('is upright without the key, a quarter turn as sent, and null for anything else', () => {
    expect(photoTurnOf(undefined)).toBe(0);
    expect([photoTurnOf('90'), photoTurnOf('180'), photoTurnOf('270')]).toEqual([90, 180, 270]);
    for (const bad of ['', '0', '360', '-90', '090', '90.0', ' 90', '90deg', 'ninety']) expect([bad, photoTurnOf(bad)]).toEqual([bad, null]);
  });
});
