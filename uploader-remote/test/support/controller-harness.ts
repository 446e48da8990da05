/**
 * The batch controller as the tests drive it: opened on the fakes of fake-services.ts, without a
 * DOM, on jest's fake clock (each test file turns it on), with the waits and states the tests ask
 * about. One harness for every test of the controller.
 */
import { BatchController, type ControllerOptions, type UploaderState } from '../../src/features/upload/controller/batch-controller';
import { fakeServices } from './fake-services';

/** Who the tests upload for. */
export const IDENTITY = { owner: 'sub-1', email: 'member@example.com', ranchId: 'mesquite-flats' };

/** Advances the fake clock in steps until `condition` holds (a failure names what was awaited). */
export async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (condition()) return;
    await jest.advanceTimersByTimeAsync(100);
  }
  throw new Error(`Timed out (on the fake clock) waiting for ${what}`);
}

/** A controller on `services` (a page opened), attached as the screen does, with its state at hand. */
export function open(services = fakeServices(), options: ControllerOptions = { concurrency: 3 }) {
  const controller = new BatchController(services.services, IDENTITY, options);
  controller.attach();
  const state = (): UploaderState => controller.getState();
  return { ...services, controller, state };
}

export type Harness = ReturnType<typeof open>;

/** The allowance is known and nothing is being checked: Upload would send what is listed. */
export const ready = (s: UploaderState) => s.allowance.kind === 'known' && s.queue.checks.kind === 'idle';
/** No batch runs and nothing is being checked. */
export const idle = (s: UploaderState) => s.queue.batch.kind === 'idle' && s.queue.checks.kind === 'idle';

/** Picks `files`, waits until each is listed or skipped, and, when any is listed, uploads them and waits for the batch to end. */
export async function uploadAll(t: Harness, files: File[]): Promise<void> {
  t.controller.addFiles(files);
  await until(() => ready(t.state()) && t.state().queue.files.length + t.state().queue.skipped.length === files.length, 'the files to be checked');
  if (t.state().queue.files.length === 0) return;
  t.controller.requestUpload();
  await until(() => t.state().queue.batch.kind === 'running', 'the batch to start');
  await until(() => idle(t.state()), 'the batch to end');
}
