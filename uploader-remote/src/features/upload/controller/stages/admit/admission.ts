import type { JournalEntry, JournalTarget } from '../../../model/journal-records';
import type { PhotoExif } from '../../../model/photo-exif';
import type { ListedFile } from '../../../model/upload-queue';
import type { UploadTarget } from '../../../services/upload/amplify-storage';
import type { Admission as Verdict, UploadJob } from '../../../services/upload/upload-engine';
import type { UploaderServices } from '../../../services/uploader-services';
import type { BatchJournal } from '../../batch-journal';
import type { Intake } from '../../intake';
import type { UploaderIdentity, UploaderStore } from '../../uploader-state';
import type { BatchStages } from '../pipeline';
import type { RunPhoto } from '../stage';
import type { Slots } from './slot-broker';

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
  /** The batch's transform stages: what the ranch has of a photo, its EXIF, and what it is sent as. */
  stages: Pick<BatchStages, 'record' | 'exif' | 'transform'>;
}

/** What the journal and the server's slot decided of a photo: it goes (counted or not), or why it does not. */
type Decision = { go: true; entry: JournalEntry; target: UploadTarget; reservation?: string; counted: boolean } | Exclude<Verdict, { go: true }>;

/**
 * The admit stage (stages/stage.ts): for each photo, once, just before it is sent, whether it goes
 * (its first bytes are a JPEG's, neither this browser's journal nor the server has it, a slot is
 * granted), and if so under which key, to which target and with which EXIF, as the transform
 * stages leave it. The decision is recorded in the journal before a byte is sent, so a crash
 * mid-upload resumes it under the same key and it never becomes two objects. Everything that
 * sends or reports a photo reads it here.
 */
export class Admissions {
  private readonly admitted = new Map<string, RunPhoto>();
  private readonly byId: Map<string, ListedFile>;

  constructor(private readonly input: AdmissionInput) {
    this.byId = new Map(input.files.map((f) => [f.id, f]));
  }

  /** What was decided for a job of the batch, once admitted. */
  sent(id: string): RunPhoto | undefined {
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
    const { intake, journal, stages } = this.input;
    const file = this.fileOf(job.id);
    if (!file) return { go: false, reason: 'unreadable' };
    const probe = await intake.probe(file.id, file.file);
    if (probe.kind === 'unreadable') return { go: false, reason: 'unreadable' };
    if (!probe.isJpeg) return { go: false, reason: 'not-jpeg' };
    const decided = await this.decide(file, probe.fingerprint);
    if (!decided.go) return decided;
    intake.claim(file.id);
    const { entry, target, counted } = decided;
    const admitted: RunPhoto = {
      key: entry.key,
      form: 'original',
      bytes: file.size,
      counted,
      target: { ...target, ...(decided.reservation ? { reservation: decided.reservation } : {}), fingerprint: probe.fingerprint, form: 'original' },
      entry: { ...entry, form: 'original' },
      exif: stages.exif(probe.exif, file),
    };
    const photo = await stages.transform(admitted, file);
    this.admitted.set(file.id, photo);
    await journal.write([photo.entry]);
    return { go: true, key: photo.key, bytes: photo.bytes };
  };

  /** Whether the photo goes, by the journal and then the server's slot, and with which entry and target. */
  private async decide(file: ListedFile, fingerprint: string): Promise<Decision> {
    const { journal, slots, batchId, services, identity, stages } = this.input;
    // Asked again just before sending: another tab may have sent it meanwhile.
    const known = await journal.entry(fingerprint);
    if (stages.record({ entry: known, server: null, asked: false }) === 'had') return { go: false, reason: 'already-uploaded' };
    const key = known?.key ?? file.key;
    const target = known?.target ?? file.target ?? this.targetFor(undefined);
    const entry: JournalEntry = {
      ...journal.entryFor({ ...file, key }, fingerprint, batchId),
      target: { level: target.level, cameraName: target.cameraName },
    };
    const where: UploadTarget = { ...target, ranchId: identity.ranchId };
    // The server's word last: a slot to send it with, or the ranch has it already (sent from
    // another device or browser), or no slot is left this month.
    const slot = await slots.take(fingerprint);
    if (slot.kind === 'slot') return { go: true, entry, target: where, reservation: slot.reservation, counted: true };
    if (slot.kind === 'known') {
      if (stages.record({ entry: known, server: slot.form, asked: true }) === 'had') {
        await journal.recordUploaded({ ...entry, form: slot.form }, services.now().getTime());
        return { go: false, reason: 'already-uploaded' };
      }
      // The ranch has it counted in another form (only its copy): it goes without a slot, and is not counted again.
      return { go: true, entry, target: where, counted: false };
    }
    if (slot.kind === 'limit') return { go: false, notSent: 'limit' };
    if (slot.kind === 'refused') return { go: false, notSent: 'refused' };
    services.logError('Could not reserve upload slots', new Error(slot.reason));
    return { go: false, notSent: 'unavailable' };
  }

  /** What a job is sent with: its admission's target and EXIF. */
  uploadTarget(id: string): UploadTarget & { photo: PhotoExif | null } {
    const sent = this.admitted.get(id);
    return { ...(sent?.target ?? this.targetFor(id)), photo: sent?.exif ?? null };
  }

  /** The job as it is sent: its admission's bytes (a copy's) instead of the file's, when they differ. */
  bodyOf(job: UploadJob): UploadJob {
    const body = this.admitted.get(job.id)?.body;
    return body ? { ...job, file: body } : job;
  }

  /** The bytes a job sends (the copy's for a copy), once admitted; else its file's. */
  bytesOf(id: string): number | undefined {
    return this.admitted.get(id)?.bytes;
  }

  /** A job went up or failed for good: its own bytes are not needed again. */
  settled(id: string): void {
    const sent = this.admitted.get(id);
    if (sent?.body) delete sent.body;
  }
}
