import { progressPercent } from './messages';

/** What the tab's title reflects of the batch (docs/uploader.md#a-batch-left-running). */
export type TitleState =
  | { kind: 'idle' }
  | { kind: 'sending'; uploaded: number; total: number; paused: boolean }
  | { kind: 'ended'; uploaded: number; failed: number; stopped: boolean };

/**
 * The tab's title while a batch runs and after it ends, so a member who left the tab finds how far
 * it got from the tab strip: "37 % uploaded — TrailSense", "Paused at 37 % — TrailSense", "Upload
 * finished — TrailSense". Null: the page's own title.
 */
export function uploadTitle(state: TitleState, productName: string): string | null {
  switch (state.kind) {
    case 'idle':
      return null;
    case 'sending': {
      const percent = progressPercent(state.uploaded, state.total);
      return state.paused ? `Paused at ${percent} % — ${productName}` : `${percent} % uploaded — ${productName}`;
    }
    case 'ended': {
      const head = state.stopped ? 'Upload stopped' : state.failed > 0 ? `Upload finished, ${state.failed} failed` : 'Upload finished';
      return `${head} — ${productName}`;
    }
  }
}
