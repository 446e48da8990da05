import { cameraKey, groupCameras, mixedCameraNotice, type CameraGroup } from './camera-match';
import { clockProblem, type ClockProblem } from './clock-check';
import { captureDate, type PhotoExif } from './photo-exif';
import { copyBytesOf, SUGGEST_COPIES_AFTER_S } from './photo-forms';
import { durationText, selectionSummary } from './selection-summary';
import { estimatesLine } from './messages';
import type { ListedFile } from './upload-queue';

/** What the screen says about the listed photos before Upload: one pass over the list. */
export interface SelectionFacts {
  /** "2,431 photos · 6.2 GB · Oct 3 – Nov 19 · 2 cameras · about 48 min at your recent speed", or null for an empty list. */
  summary: string | null;
  /** "This selection holds photos from 2 cameras: …", or null. */
  mixedCameras: string | null;
  cameras: CameraGroup[];
  /**
   * "Originals: about 21 h · Smaller copies: about 3 h" when the originals would take more than a
   * few hours at the recent speed (docs/uploader.md#smaller-copies), else null.
   */
  estimates: string | null;
}

/**
 * What one photo's EXIF says, worked out once: the facts are computed again on every change of a
 * 10,000-file list (each chunk of background checks), and parsing every date and folding every
 * camera name each time would cost the main thread tens of milliseconds per change.
 */
interface Parsed {
  taken: Date | null;
  camera: string | null;
  /** The clock verdict, and the hour of `now` it was decided for ("future" moves with time). */
  clock?: { hour: number; problem: ClockProblem | null };
}
const parsed = new WeakMap<PhotoExif, Parsed>();
function facts(exif: PhotoExif): Parsed {
  let known = parsed.get(exif);
  if (!known) {
    known = { taken: captureDate(exif), camera: cameraKey(exif) };
    parsed.set(exif, known);
  }
  return known;
}
const HOUR_MS = 60 * 60 * 1000;
function clockOf(known: Parsed, taken: Date, now: number): ClockProblem | null {
  const hour = Math.floor(now / HOUR_MS);
  if (known.clock?.hour !== hour) known.clock = { hour, problem: clockProblem(taken, hour * HOUR_MS) };
  return known.clock.problem;
}

/**
 * The facts of the listed photos (not those already sent): count, size, the capture dates' span,
 * the cameras, from what the EXIF says as `exifOf` reads it (the upload's stages: a corrected
 * clock's times; files still being read count by size only). A photo whose clock is still wrong
 * is left out of the span (the camera-clock panel names it: controller/stages/clock/).
 * `bytesPerSecond` is the recent speed, for the estimate (`capped`: held to the member's cap,
 * model/upload-cap.ts); `now` decides what is "in the future".
 */
export function selectionFacts(
  files: readonly ListedFile[],
  now: number,
  bytesPerSecond: number | null,
  sendCopies = false,
  capped = false,
  exifOf: (file: ListedFile) => PhotoExif | null = (file) => file.exif ?? null,
): SelectionFacts {
  if (files.length === 0) return { summary: null, mixedCameras: null, cameras: [], estimates: null };
  let bytes = 0;
  let copyBytes = 0;
  let first: Date | undefined;
  let last: Date | undefined;
  // One photo per camera stands for it in groupCameras; the counts are taken here.
  const cameraCounts = new Map<string, { exif: PhotoExif; count: number }>();
  for (const file of files) {
    bytes += file.size;
    // An original sent after its copy is sent whole whatever the choice.
    copyBytes += file.upgrade ? file.size : copyBytesOf([file.size]);
    const exif = exifOf(file);
    if (!exif) continue;
    const known = facts(exif);
    const { taken, camera } = known;
    if (camera !== null) {
      const seen = cameraCounts.get(camera);
      if (seen) seen.count++;
      else cameraCounts.set(camera, { exif, count: 1 });
    }
    if (!taken) continue;
    // A wrong clock's date would stretch the span to nonsense ("Jan 1, 2000 – Nov 19").
    if (clockOf(known, taken, now)) continue;
    if (!first || taken < first) first = taken;
    if (!last || taken > last) last = taken;
  }
  const cameras = groupCameras([...cameraCounts.values()].map((c) => c.exif))
    .map((group) => ({ ...group, count: cameraCounts.get(group.key)!.count }))
    .sort((a, b) => b.count - a.count);
  const speed = typeof bytesPerSecond === 'number' && Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? bytesPerSecond : null;
  const slow = speed !== null && bytes / speed > SUGGEST_COPIES_AFTER_S;
  return {
    summary: selectionSummary({
      count: files.length,
      bytes,
      sendBytes: sendCopies ? copyBytes : bytes,
      ...(first ? { first } : {}),
      ...(last ? { last } : {}),
      cameras: cameras.length,
      bytesPerSecond,
      capped,
    }),
    estimates: slow ? estimatesLine(durationText(bytes / speed), durationText(copyBytes / speed)) : null,
    mixedCameras: mixedCameraNotice(cameras),
    cameras,
  };
}
