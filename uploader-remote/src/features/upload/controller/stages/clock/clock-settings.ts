/**
 * The camera-clock stage's settings (docs/uploader.md#camera-clocks): what the member corrected
 * and turned, and how a photo's EXIF reads with it. Pure: the panel edits the settings, the stage
 * applies them, the journal keeps them with the batch (stage.ts StageChoices.stageSettings).
 *
 * Photos are named by a key that survives a reload (`photoKey`: the path in the folder, or the
 * name, and the size), not by the list's ids: a resumed batch lists its files again with new ids,
 * and its corrections must find the same photos.
 */
import { cameraKey } from '../../../model/camera-match';
import { BATCH_CAMERA, shiftCaptureTime, type ClockCorrection, type ClockPhoto } from './clock-runs';
import { captureDate, type PhotoExif, type QuarterTurn } from '../../../model/photo-exif';
import type { ListedFile } from '../../../model/upload-queue';

/** The stage's name: its settings' key in the journal, so it must not change. */
export const CLOCK_STAGE = 'camera clock';

export interface ClockSettings {
  /** Applied in order; each moves its photos (a run's, by `photoKey`, or all of one camera's). */
  corrections: readonly ClockCorrection[];
  /** By camera: the clockwise turn its photos need to stand upright. */
  turns: Readonly<Record<string, QuarterTurn>>;
  /** Runs the member chose to leave as they are, by `runKey`. */
  kept: readonly string[];
}

export const NO_CLOCK_SETTINGS: ClockSettings = { corrections: [], turns: {}, kept: [] };

/** The most seconds a correction may move a photo: a century either way (the wire refuses more). */
const MAX_OFFSET_S = 100 * 366 * 24 * 60 * 60;
const TURNS: readonly QuarterTurn[] = [90, 180, 270];

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= 2048;

/** The settings in a journal record, whatever another release wrote there: what is not well formed is dropped. */
export function parseClockSettings(value: unknown): ClockSettings {
  if (typeof value !== 'object' || value === null) return NO_CLOCK_SETTINGS;
  const v = value as Partial<Record<keyof ClockSettings, unknown>>;
  const corrections = Array.isArray(v.corrections)
    ? v.corrections.flatMap((c: unknown): ClockCorrection[] => {
        if (typeof c !== 'object' || c === null) return [];
        const { camera, offsetSeconds, ids } = c as Partial<Record<keyof ClockCorrection, unknown>>;
        if (!isText(camera) || !Number.isSafeInteger(offsetSeconds) || offsetSeconds === 0 || Math.abs(offsetSeconds as number) > MAX_OFFSET_S) return [];
        if (ids !== undefined && !(Array.isArray(ids) && ids.every(isText))) return [];
        return [{ camera, offsetSeconds: offsetSeconds as number, ...(ids ? { ids: ids } : {}) }];
      })
    : [];
  const turns: Record<string, QuarterTurn> = {};
  if (typeof v.turns === 'object' && v.turns !== null) {
    for (const [camera, turn] of Object.entries(v.turns)) if (TURNS.includes(turn as QuarterTurn)) turns[camera] = turn as QuarterTurn;
  }
  const kept = Array.isArray(v.kept) ? v.kept.filter(isText) : [];
  return { corrections, turns, kept };
}

/** A photo's name across reloads: its path in the chosen folder (or its name) and its size. */
export function photoKey(file: Pick<ListedFile, 'path' | 'name' | 'size'>): string {
  return `${file.path || file.name}|${file.size}`;
}

/** The camera a photo's clock belongs to: its EXIF's (make, model, serial), or the batch's chosen camera for photos naming none. */
export function cameraOf(exif: PhotoExif | null | undefined): string {
  return (exif && cameraKey(exif)) ?? BATCH_CAMERA;
}

/** A run's name across reloads: its camera and first photo. */
export function runKey(run: { camera: string; first: Pick<ClockPhoto, 'id'> }): string {
  return `${run.camera}\n${run.first.id}`;
}

/** The seconds the settings move one photo of `camera` named `key` (the sum of the corrections that reach it). */
export function offsetOf(settings: ClockSettings, camera: string, key: string): number {
  let offset = 0;
  for (const c of settings.corrections) if (c.camera === camera && (!c.ids || c.ids.includes(key))) offset += c.offsetSeconds;
  return offset;
}

/**
 * A photo's EXIF as the settings leave it: its capture time moved by its corrections (the
 * camera's own value kept in `cameraCaptureTime`), its camera's turn in `turn`. A photo without
 * EXIF can still be turned (its camera is the batch's); one without a capture time is not moved.
 */
export function correctedExif(
  exif: PhotoExif | null,
  file: Pick<ListedFile, 'path' | 'name' | 'size'>,
  settings: ClockSettings,
  index?: CorrectionIndex,
): PhotoExif | null {
  const camera = cameraOf(exif);
  const turn = settings.turns[camera];
  const offset = exif?.captureTime ? (index ? index.offset(camera, photoKey(file)) : offsetOf(settings, camera, photoKey(file))) : 0;
  if (offset === 0 && !turn) return exif;
  const out: PhotoExif = { ...(exif ?? {}) };
  if (offset !== 0 && exif?.captureTime) {
    const original = exif.cameraCaptureTime ?? exif.captureTime;
    out.captureTime = shiftCaptureTime(exif.captureTime, offset);
    out.cameraCaptureTime = original;
  }
  if (turn) out.turn = turn;
  return out;
}

/** The corrections by photo, worked out once per settings (a 10,000-photo list asks for each photo on every change). */
export interface CorrectionIndex {
  offset(camera: string, key: string): number;
}

export function correctionIndex(settings: ClockSettings): CorrectionIndex {
  const whole = new Map<string, number>();
  const byPhoto = new Map<string, number>();
  for (const c of settings.corrections) {
    if (!c.ids) whole.set(c.camera, (whole.get(c.camera) ?? 0) + c.offsetSeconds);
    else for (const id of c.ids) byPhoto.set(`${c.camera}\n${id}`, (byPhoto.get(`${c.camera}\n${id}`) ?? 0) + c.offsetSeconds);
  }
  return { offset: (camera, key) => (whole.get(camera) ?? 0) + (byPhoto.get(`${camera}\n${key}`) ?? 0) };
}

/** The listed photos as the run finder reads them, their EXIF as `exifOf` leaves it (corrections applied); photos without a capture time are left out. */
export function clockPhotos(files: readonly ListedFile[], exifOf: (file: ListedFile) => PhotoExif | null): ClockPhoto[] {
  const photos: ClockPhoto[] = [];
  for (const file of files) {
    const exif = exifOf(file);
    const capture = captureDate(exif);
    if (!capture) continue;
    photos.push({ id: photoKey(file), name: file.name, path: file.path, capture, camera: cameraOf(exif) });
  }
  return photos;
}

/** The settings with one more correction. */
export function withCorrection(settings: ClockSettings, correction: ClockCorrection): ClockSettings {
  return { ...settings, corrections: [...settings.corrections, correction] };
}

/** The settings without correction `i` (Undo). */
export function withoutCorrection(settings: ClockSettings, i: number): ClockSettings {
  return { ...settings, corrections: settings.corrections.filter((_, j) => j !== i) };
}

/** The settings with `camera` turned (0: upright, as stored). */
export function withTurn(settings: ClockSettings, camera: string, turn: QuarterTurn | 0): ClockSettings {
  const turns = { ...settings.turns };
  if (turn === 0) delete turns[camera];
  else turns[camera] = turn;
  return { ...settings, turns };
}

/** The settings with a run left as it is (it is no longer offered for correction). */
export function withKept(settings: ClockSettings, key: string): ClockSettings {
  return settings.kept.includes(key) ? settings : { ...settings, kept: [...settings.kept, key] };
}
