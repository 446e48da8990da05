/**
 * Camera clocks and turns (docs/uploader.md#camera-clocks) as a transform stage of the run
 * (stage.ts): the member's corrections move a camera's capture times, and a camera strapped
 * sideways has its photos turned. It changes only what a photo's EXIF says (`exif`): the
 * metadata then carries the corrected time beside the camera's own, and the turn
 * (services/upload/amplify-storage.ts `uploadMetadata`); a smaller copy is made from that EXIF,
 * upright and with the corrected time (services/files/copy.worker.ts). The original file is sent
 * unchanged. Its settings come from its panel (clock-panel.tsx) and travel with the batch.
 */
import type { PhotoExif } from '../../../model/photo-exif';
import type { ListedFile } from '../../../model/upload-queue';
import type { StageChoices, TransformStage } from '../stage';
import { ClockPanel } from './clock-panel';
import { CLOCK_STAGE, correctedExif, correctionIndex, NO_CLOCK_SETTINGS, parseClockSettings, type ClockSettings, type CorrectionIndex } from './clock-settings';

/**
 * The settings read once per settings object, with each photo's EXIF as they leave it: every
 * photo is asked for on each change of a 10,000-photo list, and the same EXIF object back keeps
 * the list's per-EXIF caches (model/selection.ts) warm.
 */
interface Read {
  settings: ClockSettings;
  index: CorrectionIndex;
  corrected: WeakMap<PhotoExif, PhotoExif | null>;
}
const read = new WeakMap<object, Read>();

function settingsOf(choices: StageChoices): Read | null {
  const raw = choices.stageSettings[CLOCK_STAGE];
  if (typeof raw !== 'object' || raw === null) return null;
  let known = read.get(raw);
  if (!known) {
    const settings = parseClockSettings(raw);
    known = { settings, index: correctionIndex(settings), corrected: new WeakMap() };
    read.set(raw, known);
  }
  return known.settings === NO_CLOCK_SETTINGS ? null : known;
}

export const clockStage: TransformStage = {
  name: CLOCK_STAGE,
  exif(exif: PhotoExif | null, file: ListedFile, choices: StageChoices): PhotoExif | null {
    const known = settingsOf(choices);
    if (!known) return exif;
    if (!exif) return correctedExif(exif, file, known.settings, known.index);
    // One EXIF object per listed photo: what it was corrected to is kept by it.
    let out = known.corrected.get(exif);
    if (out === undefined) {
      out = correctedExif(exif, file, known.settings, known.index);
      known.corrected.set(exif, out);
    }
    return out;
  },
  // Nothing to do per batch: what it changes is the EXIF, which admission and the copies read through `exif`.
  begin: () => ({}),
  panel: ClockPanel,
};
