import type { JournalEntry, JournalTarget } from '../model/journal-records';
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
  /** The object key: the journal's when it had the photo (a resend overwrites the same object), else the listed one. */
  key: string;
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
    const { intake, journal, slots, batchId, services, identity } = this.input;
    const file = this.fileOf(job.id);
    if (!file) return { go: false, reason: 'unreadable' };
    const probe = await intake.probe(file.id, file.file);
    if (probe.kind === 'unreadable') return { go: false, reason: 'unreadable' };
    if (!probe.isJpeg) return { go: false, reason: 'not-jpeg' };
    // Asked again just before sending: another tab may have sent it meanwhile.
    const known = await journal.entry(probe.fingerprint);
    if (known?.status === 'uploaded') return { go: false, reason: 'already-uploaded' };
    const key = known?.key ?? file.key;
    const target = known?.target ?? file.target ?? this.targetFor(undefined);
    const entry: JournalEntry = {
      ...journal.entryFor({ ...file, key }, probe.fingerprint, batchId),
      target: { level: target.level, cameraName: target.cameraName },
    };
    // The server's word last: a slot to send it with, or the ranch has it already (sent from
    // another device or browser), or no slot is left this month.
    const slot = await slots.take(probe.fingerprint);
    if (slot.kind === 'known') {
      await journal.recordUploaded(entry, services.now().getTime());
      return { go: false, reason: 'already-uploaded' };
    }
    if (slot.kind === 'limit') return { go: false, notSent: 'limit' };
    if (slot.kind === 'unavailable') {
      services.logError('Could not reserve upload slots', new Error(slot.reason));
      return { go: false, notSent: 'unavailable' };
    }
    intake.claim(file.id);
    this.admitted.set(file.id, {
      key,
      target: { ...target, ranchId: identity.ranchId, reservation: slot.reservation, fingerprint: probe.fingerprint },
      entry,
      exif: probe.exif,
    });
    await journal.write([entry]);
    return { go: true, key };
  };

  /** What a job is sent with: its admission's target and EXIF. */
  uploadTarget(id: string): UploadTarget & { photo: PhotoExif | null } {
    const sent = this.admitted.get(id);
    return { ...(sent?.target ?? this.targetFor(id)), photo: sent?.exif ?? null };
  }
}
