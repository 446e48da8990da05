/**
 * The desktop notification a member may ask for when a batch ends (they may be in another tab or
 * away): asked for only when they start a batch (the permission prompt needs their click), and
 * only once per browser; shown at the end with the counts. Framework-free, behind a port.
 */
import { formatCount } from '../../model/messages';

export type NotificationPermissionState = 'default' | 'granted' | 'denied' | 'unsupported';

export interface NotificationPort {
  permission(): NotificationPermissionState;
  /** Asks the browser (a prompt); resolves with the answer. */
  request(): Promise<NotificationPermissionState>;
  show(title: string, body: string): void;
}

/** Whether this browser was asked already (uploader-preferences.ts). */
export interface AskedOnce {
  asked(): boolean;
  markAsked(): void;
}

/** Asks for permission the first time a batch is started here, never again (a "no" is an answer). */
export async function askOnce(port: NotificationPort, record: AskedOnce): Promise<void> {
  if (port.permission() !== 'default' || record.asked()) return;
  record.markAsked();
  await port.request().catch(() => 'denied' as const);
}

/** The batch's outcome for the notification: sent, skipped (already uploaded, not sent), failed. */
export interface BatchOutcome {
  sent: number;
  skipped: number;
  failed: number;
  stopped: boolean;
}

export function endNotification(outcome: BatchOutcome, productName: string): { title: string; body: string } {
  const title = `${productName}: ${outcome.stopped ? 'upload stopped' : 'upload finished'}`;
  const body = `${formatCount(outcome.sent)} sent, ${formatCount(outcome.skipped)} skipped, ${formatCount(outcome.failed)} failed.`;
  return { title, body };
}

/** The page's Notification API. */
export function browserNotifications(): NotificationPort {
  const api = typeof Notification === 'undefined' ? undefined : Notification;
  return {
    permission: () => (api ? api.permission : 'unsupported'),
    request: () => (api ? api.requestPermission() : Promise.resolve('unsupported')),
    show(title, body) {
      if (!api || api.permission !== 'granted') return;
      try {
        new api(title, { body, tag: 'trailsense-batch' });
      } catch {
        // Some browsers allow notifications only from a service worker: nothing is shown.
      }
    },
  };
}
