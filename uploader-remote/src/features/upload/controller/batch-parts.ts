import { sliceSize } from '../model/slice-plan';
import type { ListedFile } from '../model/upload-queue';
import type { UploaderServices } from '../services/uploader-services';
import type { AccountSync } from './account-sync';
import type { BatchJournal } from './batch-journal';
import { BatchProgress } from './batch-progress';
import type { Intake } from './intake';
import { RunScreen } from './run-screen';
import { Admissions } from './stages/admit/admission';
import { fixedSlots, SlotBroker, type Slots } from './stages/admit/slot-broker';
import type { BatchStages, StagePipeline } from './stages/pipeline';
import { BatchOutcomeRecorder } from './stages/settle/batch-outcome-recorder';
import { recordInJournal, reportToAnalytics, RunEvents, RunTally, shareSuccesses } from './stages/settle/run-events';
import type { ControllerOptions, UploaderIdentity, UploaderStore } from './uploader-state';

/** The fingerprints of the listed photos still waiting to be sent, in list order (the next slices come from them). */
function* upcomingFingerprints(files: readonly ListedFile[]): Iterable<string> {
  for (const f of files) if (f.status.kind === 'waiting' && f.fingerprint !== undefined) yield f.fingerprint;
}

/** The listed photos' average size (a slice's photos are like these). */
function averageSize(files: readonly ListedFile[]): number {
  if (files.length === 0) return 0;
  let sum = 0;
  for (const f of files) sum += f.size;
  return sum / files.length;
}

/** One running batch's parts: its measures, its stages (admit, transform, settle) and who hears its events. */
export interface BatchParts {
  batchId: string;
  now: () => number;
  progress: BatchProgress;
  outcome: BatchOutcomeRecorder;
  tally: RunTally;
  screen: RunScreen;
  slots: Slots;
  /** Aborts the slot broker's waits when the batch ends. */
  sliceSleep: AbortController;
  admissions: Admissions;
  stages: BatchStages;
  events: RunEvents;
  /** The camera chosen when Upload was pressed: one camera's photos sent as it are suggested as it next time. */
  cameraName: string;
}

/** What the parts of a batch are made of: the controller's parts and the batch's own. */
export interface BatchPartsInput {
  store: UploaderStore;
  services: UploaderServices;
  identity: UploaderIdentity;
  options: ControllerOptions;
  journal: BatchJournal;
  intake: Intake;
  account: AccountSync;
  pipeline: StagePipeline;
  /** Where the slots held are remembered (UploadRun's reservations key). */
  reservationsKey: string;
  /** The member's cap now (bytes/s) as the batch measures the link, or null. */
  capNow: (progress: BatchProgress) => number | null;
}

/**
 * The parts of a batch about to run (`files`, at most `limit` of them): its measures, its slots,
 * its stages — admission (stages/admit/), the transforms (stages/index.ts) and the settling
 * (stages/settle/) — and, in order, who hears its events.
 */
export function openBatch(input: BatchPartsInput, files: readonly ListedFile[], limit: number, batchId: string): BatchParts {
  const { services, store, identity, journal, account } = input;
  const now = () => services.now().getTime();
  const before = store.getState().queue;
  const sizes = new Map(files.map((f) => [f.id, f.size]));
  const sizeOf = (id: string) => sizes.get(id) ?? store.getState().queue.files.find((f) => f.id === id)?.size ?? 0;
  const { sendCopies, choices, stageSettings } = store.getState();
  const stages = input.pipeline.begin({ choices: { sendCopies, choices, stageSettings }, services, listed: () => store.getState().queue.files });
  // What each photo sends: its admitted bytes once admitted (so the speed measured is the link's).
  let admissions: Admissions | null = null;
  const bytesOf = (id: string) => admissions?.bytesOf(id) ?? sizeOf(id);
  const progress: BatchProgress = new BatchProgress(bytesOf, now(), before.uploaded, before.total, stages.weigh, () => input.capNow(progress));
  const outcome = new BatchOutcomeRecorder(now, services.wakeLock, bytesOf);
  const tally = new RunTally(before.uploaded, before.failures);
  const screen = new RunScreen(store, services.timers, now, progress, tally, () => limit - (tally.uploaded - before.uploaded));
  const sliceSleep = new AbortController();
  const slots = slotsFor(input, progress, now, sliceSleep.signal);
  admissions = new Admissions({ store, services, identity, journal, intake: input.intake, slots, batchId, files, stages });
  const admitted = admissions;
  const events = new RunEvents((id) => admitted.sent(id));
  events.subscribe((event) => {
    progress.track(event);
    outcome.track(event);
  });
  events.subscribe(tally.listener);
  events.subscribe(shareSuccesses(account, services.tabs, identity, now));
  events.subscribe(recordInJournal(journal, now));
  events.subscribe(reportToAnalytics(services.analytics, identity.ranchId, tally));
  events.subscribe(screen.listener);
  for (const listener of stages.listeners) events.subscribe(listener);
  events.subscribe((event) => {
    if (event.type === 'succeeded' || event.type === 'failed') admitted.settled(event.id);
  });
  return { batchId, now, progress, outcome, tally, screen, slots, sliceSleep, admissions, stages, events, cameraName: choices.camera };
}

/** Upload slots from the server, a slice of the batch at a time (stages/admit/slot-broker.ts), or the fixed reservation of tests. */
function slotsFor(input: BatchPartsInput, progress: BatchProgress, now: () => number, sleepSignal: AbortSignal): Slots {
  const { services, store, options, identity, account } = input;
  if (options.reservation) return fixedSlots(options.reservation);
  return new SlotBroker({
    api: services.uploads,
    ranchId: identity.ranchId,
    upcoming: () => upcomingFingerprints(store.getState().queue.files),
    sliceSize: () => sliceSize(progress.rate() ?? store.getState().recentSpeed, averageSize(store.getState().queue.files)),
    now,
    sleep: (ms) => services.sleep(ms, sleepSignal),
    onServerWait: (until, why = 'busy') => store.set({ serverWait: until === null ? null : { seconds: (until - now()) / 1000, why } }),
    onMonth: (month) => account.monthSaid(month),
    remember: (reservations) => services.prefs.setOpenReservations(input.reservationsKey, reservations),
    logError: services.logError,
  });
}
