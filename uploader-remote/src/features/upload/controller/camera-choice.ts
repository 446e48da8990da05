import { groupCameras, suggestCamera } from '../model/camera-match';
import type { UploaderServices } from '../services/uploader-services';
import type { BatchJournal } from './batch-journal';
import type { UploaderStore } from './uploader-state';

/**
 * The batch's camera and training choice: set by the user, taken from a resumed batch, or (for the
 * camera) suggested from the photos' EXIF until the user picks one. Every change is saved with the
 * batch's record in the journal.
 */
export class CameraChoice {
  /** The user picked the camera: the photos' suggestion no longer overrides it. */
  private cameraChosen = false;

  constructor(
    private readonly store: UploaderStore,
    private readonly services: UploaderServices,
    private readonly ranchId: string,
    private readonly journal: BatchJournal,
  ) {}

  setCamera(camera: string): void {
    this.cameraChosen = true;
    this.store.set({ choices: { ...this.store.getState().choices, camera } });
    void this.journal.saveBatch();
  }

  setTraining(training: boolean): void {
    this.store.set({ choices: { ...this.store.getState().choices, training } });
    void this.journal.saveBatch();
  }

  /** A resumed batch's choices: its camera was chosen (or suggested) when it began, so it stays. */
  keep(camera: string, training: boolean): void {
    this.cameraChosen = true;
    this.store.set({ choices: { camera, training } });
  }

  /** The list was cleared: the next photos may suggest their camera again. */
  reset(): void {
    this.cameraChosen = false;
  }

  /**
   * Preselects the camera the photos say they come from (model/camera-match.ts), unless the user
   * chose one: once the selection's EXIF is read, and again when the ranch's cameras arrive.
   */
  suggest(): void {
    const state = this.store.getState();
    if (this.cameraChosen || state.choices.camera !== '' || state.queue.checks.kind !== 'idle') return;
    const groups = groupCameras(state.queue.files.map((f) => f.exif ?? null));
    const suggested = suggestCamera({ groups, cameras: state.cameras, remembered: this.services.prefs.cameraNames(this.ranchId) });
    if (suggested) {
      this.store.set({ choices: { ...state.choices, camera: suggested } });
      void this.journal.saveBatch();
    }
  }
}
