import { remainingOf } from '../../../model/quota';
import type { ListedFile } from '../../../model/upload-queue';
import { SessionEndedError } from '../../../services/upload/session-ended-error';
import { runBatch, type RunningBatch, type UploadJob } from '../../../services/upload/upload-engine';
import type { UploaderServices } from '../../../services/uploader-services';
import type { ControllerOptions, PauseReason, UploaderStore } from '../../uploader-state';
import type { Admissions } from '../admit/admission';

/** Listed photos still to send that use no allowance: the ranch has them counted already (an original after its copy). */
export function uncountedWaiting(files: readonly ListedFile[]): number {
  let n = 0;
  for (const f of files) if (f.upgrade && f.status.kind !== 'failed') n++;
  return n;
}

/** A listed file as the engine's job. */
export const jobOf = (f: ListedFile): UploadJob => ({ id: f.id, key: f.key, file: f.file });

/** What sending a batch needs of the run. */
export interface SendInput {
  store: UploaderStore;
  services: UploaderServices;
  options: ControllerOptions;
  /** Each job's admission, target and bytes (the admit and transform stages). */
  admissions: Pick<Admissions, 'admit' | 'uploadTarget' | 'bodyOf'>;
  /** The engine's events, to the settle stage. */
  emit: Parameters<typeof runBatch>[3];
  now: () => number;
  /** The member's cap now, in bytes/s, or null. */
  pace: () => number | null;
  /** Whether the computer woke moments ago (a failure then burns no attempt: model/retry.ts). */
  wokeRecently: () => boolean;
  /** Pauses the batch (offline, the session lost). */
  pause: (reason: PauseReason) => void;
}

/**
 * The send stage (stages/stage.ts): the engine on the batch (services/upload/upload-engine.ts: a
 * pool as wide as the link needs, retries, stalls, pauses, the member's cap), each job admitted
 * by the admit and transform stages before its first byte and sent with what they decided.
 */
export function send(files: readonly ListedFile[], limit: number, input: SendInput): RunningBatch {
  const { services, store, options, admissions } = input;
  return runBatch(
    files.map(jobOf),
    {
      concurrency: options.concurrency,
      limit: limit + uncountedWaiting(files),
      retry: services.retry,
      stallMs: options.stallMs ?? services.stallMs,
      pace: input.pace,
      // Photos the ranch has counted already use no allowance.
      allowance: () => (remainingOf(store.getState().allowance) ?? 0) + uncountedWaiting(store.getState().queue.files),
    },
    {
      upload: (job, context) => services.upload(admissions.uploadTarget(job.id), admissions.bodyOf(job), context),
      refreshCredentials: async (signal) => {
        try {
          await services.refreshCredentials(signal);
        } catch (error) {
          if (error instanceof SessionEndedError) input.pause('session');
          throw error;
        }
      },
      sleep: services.sleep,
      random: services.random,
      timers: services.timers,
      now: input.now,
      admit: admissions.admit,
      isOnline: services.network.online,
      networkLost: () => input.pause('offline'),
      wokeRecently: input.wokeRecently,
    },
    input.emit,
  );
}
