import type { JournalEntry, JournalTarget } from '../model/journal-records';
import { keyFor, onRecord, type PhotoForm } from '../model/photo-forms';
import type { CopyAhead } from './copy-ahead';
import type { PhotoExif } from '../model/photo-exif';
import type { ListedFile } from '../model/upload-queue';
import type { UploadTarget } from '../services/upload/amplify-storage';
import type { Admission as Verdict, UploadJob } from '../services/upload/upload-engine';
import type { UploaderServices } from '../services/uploader-services';
import type { BatchJournal } from './batch-journal';
import type { Intake } from './intake';
import type { Slots } from './slot-broker';
import type { UploaderIdentity, UploaderStore } from './uploader-state';

/** A photo admitted to the running batch: decided once, before its first byte is sent. */
export interface SentFile {
  /**
   * The object key: the journal's when it had the photo (a resend overwrites the same object),
   * else the listed one — with `-copy` for a copy (model/photo-forms.ts keyFor).
   */
  key: string;
  /** Sent as a smaller copy or as the original. */
  form: PhotoForm;
  /** The copy's bytes, for a copy (kept for retries until it went up). */
  copy?: Blob;
  /** The bytes sent: the copy's, or the original's. */
  bytes: number;
  /** Whether it counts against the month: not an original sent after its copy (the ranch has it counted). */
  counted: boolean;
  /** Where it goes, with the reservation and fingerprint the server checks it against. */
  target: UploadTarget;
  /** Its journal entry as recorded before sending. */
  entry: JournalEntry;
  /** What its probe read of its EXIF (sent as the object's metadata). */
  exif: PhotoExif | null;
}

/** What admission needs of the running batch. */
export interface AdmissionInput {
  store: UploaderStore;
  services: Pick<UploaderServices, 'now' | 'logError'>;
  identity: UploaderIdentity;
  journal: BatchJournal;
  intake: Intake;
  slots: Slots;
  batchId: string;
  /** The files Upload was pressed with (others are found in the list). */
  files: readonly ListedFile[];
  /** "Send smaller copies" as it was when Upload was pressed, with the batch's copies; null: originals. */
  copies: CopyAhead | null;
}

/**
 * Admission to the running batch: for each photo, once, just before it is sent, whether it goes
 * (its first bytes are a JPEG's, neither this browser's journal nor the server has it, a slot is
 * granted), and if so under which key, to which target and with which EXIF. The decision is
 * recorded in the journal before a byte is sent, so a crash mid-upload resumes it under the same
 * key and it never becomes two objects. Everything that sends or reports a photo reads it here.
 */
export class Admissions {
  private readonly admitted = new Map<string, SentFile>();
  private readonly byId: Map<string, ListedFile>;

  constructor(private readonly input: AdmissionInput) {
    this.byId = new Map(input.files.map((f) => [f.id, f]));
  }

  /** What was decided for a job of the batch, once admitted. */
  sent(id: string): SentFile | undefined {
    return this.admitted.get(id);
  }

  /** The listed file of a job. */
  private fileOf(id: string): ListedFile | undefined {
    return this.byId.get(id) ?? this.input.store.getState().queue.files.find((f) => f.id === id);
  }

  /** The target a file of the list goes to: its own (kept from its first attempt), else the list's choices. */
  targetFor(id: string | undefined): UploadTarget {
    const file = id === undefined ? undefined : this.fileOf(id);
    const { choices } = this.input.store.getState();
    const chosen: JournalTarget = file?.target ?? { level: choices.training ? 'private' : 'public', cameraName: choices.camera };
    return { level: chosen.level, cameraName: chosen.cameraName, ranchId: this.input.identity.ranchId };
  }

  /** The engine's admission of one job (services/upload/upload-engine.ts `admit`). */
  readonly admit = async (job: UploadJob): Promise<Verdict> => {
    const { intake, journal, slots, batchId, services, identity, copies } = this.input;
    const file = this.fileOf(job.id);
    if (!file) return { go: false, reason: 'unreadable' };
    const probe = await intake.probe(file.id, file.file);
    if (probe.kind === 'unreadable') return { go: false, reason: 'unreadable' };
    if (!probe.isJpeg) return { go: false, reason: 'not-jpeg' };
    // Asked again just before sending: another tab may have sent it meanwhile.
    const known = await journal.entry(probe.fingerprint);
    if (onRecord({ entry: known, known: false, copyOnly: false, asked: false, sendCopies: copies !== null }) === 'had') {
      return { go: false, reason: 'already-uploaded' };
    }
    const key = known?.key ?? file.key;
    const target = known?.target ?? file.target ?? this.targetFor(undefined);
    const entry: JournalEntry = {
      ...journal.entryFor({ ...file, key }, probe.fingerprint, batchId),
      target: { level: target.level, cameraName: target.cameraName },
    };
    // The server's word last: a slot to send it with, or the ranch has it already (sent from
    // another device or browser), or no slot is left this month.
    const slot = await slots.take(probe.fingerprint);
    if (slot.kind === 'known' || (slot.kind === 'copy' && copies !== null)) {
      await journal.recordUploaded(slot.kind === 'copy' ? { ...entry, form: 'copy' } : entry, services.now().getTime());
      return { go: false, reason: 'already-uploaded' };
    }
    if (slot.kind === 'limit') return { go: false, notSent: 'limit' };
    if (slot.kind === 'refused') return { go: false, notSent: 'refused' };
    if (slot.kind === 'unavailable') {
      services.logError('Could not reserve upload slots', new Error(slot.reason));
      return { go: false, notSent: 'unavailable' };
    }
    intake.claim(file.id);
    // The ranch has only its copy: the original goes without a slot, and is not counted again.
    const reservation = slot.kind === 'slot' ? { reservation: slot.reservation } : {};
    const made = slot.kind === 'slot' && copies !== null ? await this.copyOf(file, probe.exif) : null;
    const form: PhotoForm = made ? 'copy' : 'original';
    const sent: SentFile = {
      key: keyFor(key, form),
      form,
      ...(made ? { copy: made } : {}),
      bytes: made?.size ?? file.size,
      counted: slot.kind === 'slot',
      target: { ...target, ranchId: identity.ranchId, ...reservation, fingerprint: probe.fingerprint, form },
      entry: { ...entry, form },
      exif: probe.exif,
    };
    this.admitted.set(file.id, sent);
    await journal.write([sent.entry]);
    return { go: true, key: sent.key, bytes: sent.bytes };
  };

  /** The photo's smaller copy, or null when its original goes instead (smaller already, undecodable, or the copy failed). */
  private async copyOf(file: ListedFile, exif: PhotoExif | null): Promise<Blob | null> {
    try {
      const made = await this.input.copies!.take(file, exif);
      return made.kind === 'copy' ? made.blob : null;
    } catch (error) {
      // Nothing is lost: the original is sent.
      this.input.services.logError('Could not make a smaller copy', error);
      return null;
    }
  }

  /** What a job is sent with: its admission's target and EXIF. */
  uploadTarget(id: string): UploadTarget & { photo: PhotoExif | null } {
    const sent = this.admitted.get(id);
    return { ...(sent?.target ?? this.targetFor(id)), photo: sent?.exif ?? null };
  }

  /** The job as it is sent: a copy's bytes instead of the file's. */
  bodyOf(job: UploadJob): UploadJob {
    const copy = this.admitted.get(job.id)?.copy;
    return copy ? { ...job, file: copy } : job;
  }

  /** The bytes a job sends (the copy's for a copy), once admitted; else its file's. */
  bytesOf(id: string): number | undefined {
    return this.admitted.get(id)?.bytes;
  }

  /** A job went up or failed for good: its copy's bytes are not needed again. */
  settled(id: string): void {
    const sent = this.admitted.get(id);
    if (sent?.copy) delete sent.copy;
  }
}
