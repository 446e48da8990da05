import type { BatchOutcomeEvent } from '@trailsense/shared/analytics-events';
import type { PhotoExif } from '../../model/photo-exif';
import type { OnRecord } from '../../model/photo-forms';
import type { ListedFile } from '../../model/upload-queue';
import type { RecordFacts, RunListener, RunPhoto, StageBatch, StageChoices, StageRun, TransformStage } from './stage';

/** What the ranch has of a photo when no stage says otherwise: it has it if this browser sent it or the server has it in any form. */
export function defaultRecord(facts: RecordFacts): OnRecord {
  return facts.entry?.status === 'uploaded' || (facts.asked && facts.server !== null) ? 'had' : 'new';
}

/** The transform stages of one running batch, as admission, the measures and the settling use them. */
export interface BatchStages {
  /** What the ranch has of a photo, by the batch's choices. */
  record(facts: RecordFacts): OnRecord;
  /** A photo's EXIF as the stages leave it. */
  exif(exif: PhotoExif | null, file: ListedFile): PhotoExif | null;
  /** The photo as the stages send it, each in turn. */
  transform(photo: RunPhoto, file: ListedFile): Promise<RunPhoto>;
  /** What a listed photo is expected to send, when a stage changes it (undefined: its size). */
  weigh: ((file: ListedFile) => number) | undefined;
  /** The stages' own listeners of the run's events. */
  listeners: RunListener[];
  /** The stages' fields of the outcome event. */
  outcome(): Partial<BatchOutcomeEvent>;
  end(): void;
}

/**
 * The transform stages in their order (stages/index.ts TRANSFORM_STAGES): what each says of a
 * photo on record and of its EXIF, in turn, and the stages at work on a batch (`begin`).
 */
export class StagePipeline {
  constructor(private readonly stages: readonly TransformStage[]) {}

  /** What the ranch has of a photo: the default rule, then each stage that knows better. */
  record(facts: RecordFacts, choices: StageChoices): OnRecord {
    return this.stages.reduce((verdict, stage) => (stage.onRecord ? stage.onRecord(facts, verdict, choices) : verdict), defaultRecord(facts));
  }

  exif(exif: PhotoExif | null, file: ListedFile, choices: StageChoices): PhotoExif | null {
    return this.stages.reduce((value, stage) => (stage.exif ? stage.exif(value, file, choices) : value), exif);
  }

  /** The stages for a batch whose Upload was just pressed with `batch.choices`. */
  begin(batch: Omit<StageBatch, 'exifOf'>): BatchStages {
    const { choices, services } = batch;
    const exifOf = (file: ListedFile) => this.exif(file.exif ?? null, file, choices);
    const runs = this.stages.map((stage): [TransformStage, StageRun] => [stage, stage.begin({ ...batch, exifOf })]);
    const weighs = runs.flatMap(([, run]) => (run.weigh ? [run.weigh.bind(run)] : []));
    return {
      record: (facts) => this.record(facts, choices),
      exif: (exif, file) => this.exif(exif, file, choices),
      async transform(photo, file) {
        let current = photo;
        for (const [stage, run] of runs) {
          if (!run.transform) continue;
          try {
            current = await run.transform(current, file);
          } catch (error) {
            // A stage's own failures are its to handle; one it did not is logged, and the photo goes as it came.
            services.logError(`The ${stage.name} stage failed`, error);
          }
        }
        return current;
      },
      weigh:
        weighs.length === 0
          ? undefined
          : (file) => {
              for (const weigh of weighs) {
                const bytes = weigh(file);
                if (bytes !== undefined) return bytes;
              }
              return file.size;
            },
      listeners: runs.flatMap(([, run]) => (run.listener ? [run.listener] : [])),
      outcome: () => Object.assign({}, ...runs.map(([, run]) => run.outcome?.() ?? {})) as Partial<BatchOutcomeEvent>,
      end: () => runs.forEach(([, run]) => run.end?.()),
    };
  }
}
