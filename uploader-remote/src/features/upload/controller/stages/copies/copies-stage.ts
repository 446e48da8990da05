/**
 * "Send smaller copies" (docs/uploader.md#smaller-copies) as a transform stage of the run
 * (stage.ts): what the ranch has of a photo by its forms, each photo granted a slot sent as its
 * smaller copy under its own key (made ahead by CopyAhead, in the copy workers), the time left
 * weighed in copies, and the outcome's copies and bytes spared. With the choice off it still says
 * what the ranch has: a photo it has only as a copy is an upgrade, its original sent without a
 * slot and not counted again.
 */
import type { BatchOutcomeEvent } from '@trailsense/shared/analytics-events';
import type { PhotoExif } from '../../../model/photo-exif';
import { copyBytesOf, keyFor, NO_COPIES, onRecord, tallyCopy, type CopyTally } from '../../../model/photo-forms';
import type { ListedFile } from '../../../model/upload-queue';
import type { RunListener, RunPhoto, StageBatch, StageRun, TransformStage } from '../stage';
import { CopyAhead } from './copy-ahead';

/** The stage's outcome fields when copies are not sent. */
const OFF: Partial<BatchOutcomeEvent> = { smallerCopies: false, ...NO_COPIES };

export const copiesStage: TransformStage = {
  name: 'smaller copies',
  // Sending copies, any form the ranch has is enough; sending originals, a copy-only photo is an upgrade (model/photo-forms.ts).
  onRecord: (facts, _verdict, choices) =>
    onRecord({ entry: facts.entry, known: facts.server !== null, copyOnly: facts.server === 'copy', asked: facts.asked, sendCopies: choices.sendCopies }),
  begin: (batch) => (batch.choices.sendCopies ? new CopiesRun(batch) : { outcome: () => OFF }),
};

/** A batch sending smaller copies. */
class CopiesRun implements StageRun {
  private readonly ahead: CopyAhead;
  private tally: CopyTally = NO_COPIES;

  constructor(private readonly batch: StageBatch) {
    this.ahead = new CopyAhead({ maker: batch.services.copies, upcoming: batch.listed, exifOf: batch.exifOf });
  }

  /** A photo granted a slot goes as its copy, under its own key; one no copy is made of, and an original after its copy, as it came. */
  async transform(photo: RunPhoto, file: ListedFile): Promise<RunPhoto> {
    if (!photo.counted) return photo;
    const copy = await this.copyOf(file, photo.exif);
    if (!copy) return photo;
    return {
      ...photo,
      key: keyFor(photo.key, 'copy'),
      form: 'copy',
      body: copy,
      bytes: copy.size,
      target: { ...photo.target, form: 'copy' },
      entry: { ...photo.entry, form: 'copy' },
    };
  }

  /** The photo's smaller copy, or null when its original goes instead (smaller already, undecodable, or the copy failed). */
  private async copyOf(file: ListedFile, exif: PhotoExif | null): Promise<Blob | null> {
    try {
      const made = await this.ahead.take(file, exif);
      return made.kind === 'copy' ? made.blob : null;
    } catch (error) {
      // Nothing is lost: the original is sent.
      this.batch.services.logError('Could not make a smaller copy', error);
      return null;
    }
  }

  /** A typical copy, or the photo itself when smaller or an original after its copy. */
  weigh(file: ListedFile): number {
    return file.upgrade ? file.size : copyBytesOf([file.size]);
  }

  readonly listener: RunListener = (event, photo) => {
    if (event.type === 'succeeded' && photo?.form === 'copy') this.tally = tallyCopy(this.tally, photo.bytes, photo.entry.size);
  };

  outcome(): Partial<BatchOutcomeEvent> {
    return { smallerCopies: true, ...this.tally };
  }

  end(): void {
    this.ahead.stop();
  }
}
