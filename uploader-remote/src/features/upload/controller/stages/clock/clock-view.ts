/**
 * What the camera-clock panel shows and what its forms ask for, as pure functions over the list
 * and the settings (clock-panel.tsx draws it): the runs still to correct, the cameras on the card,
 * the corrections made (each with Undo), and the member's input turned into a correction that
 * the run finder's rules accept or refuse (clock-runs.ts).
 */
import { cameraLabel } from '../../../model/camera-match';
import {
  BATCH_CAMERA,
  checkCorrection,
  findClockRuns,
  offsetToMake,
  type ClockCorrection,
  type ClockPhoto,
  type ClockRun,
  type CorrectionVerdict,
} from './clock-runs';
import type { ListedFile } from '../../../model/upload-queue';
import { cameraOf, clockPhotos, correctedExif, correctionIndex, runKey, type ClockSettings } from './clock-settings';
import { NO_CAMERA_NAMED } from './clock-messages';

export interface CameraOnCard {
  key: string;
  label: string;
  count: number;
  /** Its first photo in list order (the turn's preview). */
  sample: ListedFile;
}

export interface ClockView {
  /** The runs still wrong (corrections applied), those the member left as they are excluded. */
  runs: ClockRun[];
  cameras: CameraOnCard[];
  /** The corrections made, with how many listed photos each moves. */
  corrections: { correction: ClockCorrection; moved: number }[];
  /** The camera's label by key ("Photos naming no camera" for the batch's own). */
  label: (camera: string) => string;
  /** The photos with every correction applied (for checking the next one). */
  photos: ClockPhoto[];
}

/** The panel's facts for the listed photos and the settings, `now` our clock in ms. */
export function clockView(files: readonly ListedFile[], settings: ClockSettings, now: number, chosenCamera: string): ClockView {
  const index = correctionIndex(settings);
  const labels = new Map<string, string>();
  const cameras = new Map<string, CameraOnCard>();
  for (const file of files) {
    const exif = file.exif ?? null;
    const key = cameraOf(exif);
    const known = cameras.get(key);
    if (known) known.count++;
    else {
      const label = key === BATCH_CAMERA ? (chosenCamera ? chosenCamera : NO_CAMERA_NAMED) : cameraLabel(exif!);
      labels.set(key, label);
      cameras.set(key, { key, label, count: 1, sample: file });
    }
  }
  const label = (camera: string) => labels.get(camera) ?? NO_CAMERA_NAMED;
  const photos = clockPhotos(files, (file) => correctedExif(file.exif ?? null, file, settings, index));
  const runs = findClockRuns(photos, now).filter((run) => !settings.kept.includes(runKey(run)));
  const keys = new Set(photos.map((p) => `${p.camera}\n${p.id}`));
  const counts = new Map<string, number>();
  for (const p of photos) counts.set(p.camera, (counts.get(p.camera) ?? 0) + 1);
  const corrections = settings.corrections.map((correction) => ({
    correction,
    moved: correction.ids ? correction.ids.filter((id) => keys.has(`${correction.camera}\n${id}`)).length : (counts.get(correction.camera) ?? 0),
  }));
  return { runs, cameras: [...cameras.values()].sort((a, b) => b.count - a.count), corrections, label, photos };
}

/** A `datetime-local` value ("2026-11-14T06:02" or with ":33") as a wall clock (UTC fields), or null. */
export function parseLocalTime(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60 ? date : null;
}

export type OffsetUnit = 'minutes' | 'hours' | 'days';
const UNIT_S: Record<OffsetUnit, number> = { minutes: 60, hours: 3600, days: 86_400 };

/** "3" hours "later" as seconds (negative for earlier), or null when the amount is not a positive number. */
export function offsetFromAmount(amount: string, unit: OffsetUnit, direction: 'later' | 'earlier'): number | null {
  const n = Number(amount.trim());
  if (amount.trim() === '' || !Number.isFinite(n) || n <= 0) return null;
  const seconds = Math.round(n * UNIT_S[unit]);
  return direction === 'later' ? seconds : -seconds;
}

/** The correction that makes the run's first photo read `real`, checked. */
export function correctRunTo(view: ClockView, run: ClockRun, real: Date, now: number): { correction: ClockCorrection; verdict: CorrectionVerdict } {
  return checked(view, { camera: run.camera, ids: run.ids, offsetSeconds: offsetToMake(run.first, real) }, now);
}

/** A correction of `offsetSeconds` for a run's photos, or (no run) all of a camera's, checked. */
export function correctBy(
  view: ClockView,
  camera: string,
  offsetSeconds: number,
  now: number,
  run?: ClockRun,
): { correction: ClockCorrection; verdict: CorrectionVerdict } {
  return checked(view, { camera, offsetSeconds, ...(run ? { ids: run.ids } : {}) }, now);
}

function checked(view: ClockView, correction: ClockCorrection, now: number) {
  return { correction, verdict: checkCorrection(view.photos, correction, now, view.label) };
}
