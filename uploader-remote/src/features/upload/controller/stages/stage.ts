/**
 * The run pipeline's contract (docs/architecture.md#the-run-pipeline). A running batch takes each
 * photo through four stages, each a folder here:
 *
 *   admit (admit/: the journal, the server's slot)
 *   → transform (the TransformStages of index.ts, in their order: each may change what is sent)
 *   → send (send/: the engine)
 *   → settle (settle/: the journal, the tally, the other tabs, analytics)
 *
 * A feature that changes what a photo is sent as (smaller copies; next, a camera's clock set
 * right) is one TransformStage in a folder of its own, registered in index.ts: admission, the
 * engine and the settling never know of it.
 */
import type { ComponentType } from 'react';
import type { BatchOutcomeEvent } from '@trailsense/shared/analytics-events';
import type { JournalEntry } from '../../model/journal-records';
import type { PhotoExif } from '../../model/photo-exif';
import type { OnRecord, PhotoForm } from '../../model/photo-forms';
import type { EngineEvent, ListedFile } from '../../model/upload-queue';
import type { UploadTarget } from '../../services/upload/amplify-storage';
import type { ThumbnailSource } from '../../services/files/thumbnail-cache';
import type { UploaderServices } from '../../services/uploader-services';

/** A photo admitted to the running batch: decided once, before its first byte, as admission and the transforms before have left it. */
export interface RunPhoto {
  /**
   * The object key: the journal's when it had the photo (a resend overwrites the same object),
   * else the listed one — with `-copy` for a copy (model/photo-forms.ts keyFor).
   */
  key: string;
  /** Sent as a smaller copy or as the original. */
  form: PhotoForm;
  /** The bytes sent when they are not the listed file's (a copy's), kept for retries until it is settled. */
  body?: Blob;
  /** How many bytes are sent. */
  bytes: number;
  /** Whether it counts against the month: not when the ranch has it counted already (the original of a copy). */
  counted: boolean;
  /** Where it goes, with the reservation and fingerprint the server checks it against. */
  target: UploadTarget;
  /** Its journal entry as recorded before sending. */
  entry: JournalEntry;
  /** Its EXIF as the stages leave it (sent as the object's metadata). */
  exif: PhotoExif | null;
}

/** What is known of a photo on record, for the stages to say what the ranch has of it (OnRecord). */
export interface RecordFacts {
  /** This browser's journal entry for it. */
  entry: Pick<JournalEntry, 'status' | 'form'> | undefined;
  /** The form the server has it in (null: none), as far as `asked` says. */
  server: PhotoForm | null;
  /** Whether the server's answer is known for it. */
  asked: boolean;
}

/**
 * The member's choices a stage follows (controller/uploader-state.ts UploaderState): the screen's
 * now (intake), or as they were when Upload was pressed (a running batch keeps them).
 */
export interface StageChoices {
  sendCopies: boolean;
  choices: { camera: string; training: boolean };
  /**
   * Each stage's own settings, by its `name`, as its panel saved them (StagePanelProps.save): kept
   * with the batch in the journal, so a reload or a resumed batch keeps them. Read them with the
   * stage's own parser: a journal written by another release may hold anything.
   */
  stageSettings: Readonly<Record<string, unknown>>;
}

/** What a stage's panel is given: the list before Upload, and its own settings to read and save. */
export interface StagePanelProps {
  /** The listed photos (those sent leave the list), in list order, with the EXIF they were read with. */
  files: readonly ListedFile[];
  /** The stage's settings as saved (unknown until its parser reads them). */
  settings: unknown;
  /** Saves the stage's settings with the batch. */
  save: (settings: unknown) => void;
  /** The camera chosen for the batch ("" for "Indicate camera"): it names photos whose EXIF names none. */
  camera: string;
  /** Our clock, ms since the epoch. */
  now: number;
  /** A batch is running: its settings are fixed until it ends. */
  running: boolean;
  /** Thumbnails of listed photos (a preview), when the browser can make them. */
  thumbnails?: ThumbnailSource;
}

/** The run's events as every stage hears them: each engine event, with the photo it is about once admitted. */
export type RunListener = (event: EngineEvent, photo: RunPhoto | undefined) => void;

/** What a transform stage is given of the batch when Upload is pressed. */
export interface StageBatch {
  choices: StageChoices;
  /** The browser and the network, for the stage's own work (the copies stage's copy workers). */
  services: UploaderServices;
  /** The listed photos now, in list order (for work done ahead of their admission). */
  listed: () => readonly ListedFile[];
  /** A listed photo's EXIF as the stages' `exif` hooks leave it (for work done ahead). */
  exifOf: (file: ListedFile) => PhotoExif | null;
}

/** A transform stage at work on one batch. Every part is optional. */
export interface StageRun {
  /**
   * What `photo` (of the listed `file`) is sent as: itself, or changed (another body, key, form,
   * EXIF). Called once per photo, after its slot and before its journal entry is written, in the
   * stages' order. Never rejects: a stage that cannot do its part sends the photo as it came.
   */
  transform?(photo: RunPhoto, file: ListedFile): Promise<RunPhoto>;
  /** What a listed photo is expected to send, for the time left; undefined: this stage does not change it. */
  weigh?(file: ListedFile): number | undefined;
  /** Hears the run's events, after the settle stage's listeners. */
  listener?: RunListener;
  /** Its fields of the batch's outcome event (docs/monitoring.md#batchoutcome). */
  outcome?(): Partial<BatchOutcomeEvent>;
  /** The batch ended: work done ahead is dropped. */
  end?(): void;
}

/** A transform stage: one folder under stages/, registered in index.ts. */
export interface TransformStage {
  /** Its name, in the log when it fails. */
  readonly name: string;
  /**
   * What the ranch has of a photo, when the stage knows better than `verdict` (the default rule's,
   * or an earlier stage's): asked by intake for each photo checked and by admission just before
   * sending. `had` skips it; `upgrade` sends it without a slot, not counted again.
   */
  onRecord?(facts: RecordFacts, verdict: OnRecord, choices: StageChoices): OnRecord;
  /** What the stage makes of a photo's EXIF (the capture time set right), before any transform sees it. */
  exif?(exif: PhotoExif | null, file: ListedFile, choices: StageChoices): PhotoExif | null;
  /** The stage for one batch, when Upload is pressed. */
  begin(batch: StageBatch): StageRun;
  /** Its part of the screen before Upload (its settings), in the stages' order below the notices. */
  panel?: ComponentType<StagePanelProps>;
}
