import { useEffect, useRef, useState } from 'react';
import type { UploaderState } from '../controller/batch-controller';
import { uploadTitle, type TitleState } from '../model/page-title';
import { endNotification, type BatchOutcome } from '../services/browser/end-notification';
import type { UploaderServices } from '../services/uploader-services';
import { WakeLockKeeper, type WakeLockStatus } from '../services/browser/wake-lock';

/**
 * What a batch left running shows outside the screen (docs/uploader.md#a-batch-left-running): the
 * tab's title says how far it got and how it ended, the computer is kept awake while it sends
 * (when the member wants), and a notification says it ended (when they allowed it). Thin: the
 * rules are in model/page-title.ts, services/browser/wake-lock.ts and services/browser/end-notification.ts.
 */
export function useBatchPresence(state: UploaderState, services: UploaderServices, productName: string, keepAwake: boolean): WakeLockStatus {
  const { queue } = state;
  const running = queue.batch.kind === 'running';
  const sending = running && state.paused.length === 0;

  const [wakeStatus, setWakeStatus] = useState<WakeLockStatus>(() => (services.wakeLock.request ? 'off' : 'unsupported'));
  // Made in an effect, not in render: it subscribes to the page's visibility.
  const keeper = useRef<WakeLockKeeper | null>(null);
  useEffect(() => {
    const made = new WakeLockKeeper(services.wakeLock, setWakeStatus);
    keeper.current = made;
    return () => {
      made.dispose();
      keeper.current = null;
    };
  }, [services]);
  useEffect(() => keeper.current?.want(sending && keepAwake), [services, sending, keepAwake]);

  // The batch's counts from its start, and its outcome once it ends (kept until the list changes).
  const started = useRef<{ uploaded: number; failures: number; stopping: boolean } | null>(null);
  const [ended, setEnded] = useState<{ outcome: BatchOutcome; total: number } | null>(null);
  useEffect(() => {
    if (running) {
      if (!started.current) {
        started.current = { uploaded: queue.uploaded, failures: queue.failures, stopping: false };
        setEnded(null);
      }
      if (queue.batch.kind === 'running' && queue.batch.stopping) started.current.stopping = true;
      return;
    }
    const start = started.current;
    if (!start) return;
    started.current = null;
    const notSent = queue.files.filter((f) => f.status.kind === 'not-sent').length;
    const outcome: BatchOutcome = {
      sent: Math.max(0, queue.uploaded - start.uploaded),
      skipped: queue.skipped.length + notSent,
      failed: Math.max(0, queue.failures - start.failures),
      stopped: start.stopping,
    };
    setEnded({ outcome, total: queue.total });
    const { title, body } = endNotification(outcome, productName);
    services.notifications.show(title, body);
  }, [running, queue, productName, services]);

  // A new selection after the end: the title is the page's again.
  const shownEnd = ended && ended.total === queue.total ? ended.outcome : null;
  const titleState: TitleState = running
    ? { kind: 'sending', uploaded: queue.uploaded, total: queue.total, paused: !sending }
    : shownEnd
      ? { kind: 'ended', uploaded: shownEnd.sent, failed: shownEnd.failed, stopped: shownEnd.stopped }
      : { kind: 'idle' };
  const title = uploadTitle(titleState, productName);
  const pageTitle = useRef<string | null>(null);
  useEffect(() => {
    if (title === null) {
      if (pageTitle.current !== null) document.title = pageTitle.current;
      pageTitle.current = null;
      return;
    }
    pageTitle.current ??= document.title;
    document.title = title;
  }, [title]);
  useEffect(
    () => () => {
      if (pageTitle.current !== null) document.title = pageTitle.current;
    },
    [],
  );
  return wakeStatus;
}
