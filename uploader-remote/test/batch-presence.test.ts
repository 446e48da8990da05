/**
 * @jest-environment node
 */
// What a batch left running shows outside the screen: the wake lock's life cycle
// (services/browser/wake-lock.ts) on a fake browser, the tab title (model/page-title.ts) and the end
// notification (services/browser/end-notification.ts).
import { uploadTitle } from '../src/features/upload/model/page-title';
import { askOnce, endNotification, type NotificationPermissionState, type NotificationPort } from '../src/features/upload/services/browser/end-notification';
import { WakeLockKeeper, type WakeLockPort, type WakeLockStatus } from '../src/features/upload/services/browser/wake-lock';

/** A browser's wake lock: grants while visible (unless refusing), lets go when the page is hidden. */
function fakeBrowser() {
  let visible = true;
  let refuse = false;
  const listeners = new Set<() => void>();
  const held: { released: boolean; onRelease: (() => void)[] }[] = [];
  const port: WakeLockPort = {
    request: async () => {
      if (!visible || refuse) throw new DOMException('not allowed', 'NotAllowedError');
      const sentinel = { released: false, onRelease: [] as (() => void)[] };
      held.push(sentinel);
      return {
        get released() {
          return sentinel.released;
        },
        release: async () => {
          if (sentinel.released) return;
          sentinel.released = true;
          for (const l of sentinel.onRelease) l();
        },
        addEventListener: (_type: 'release', listener: () => void) => void sentinel.onRelease.push(listener),
      };
    },
    visible: () => visible,
    onVisible: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  return {
    port,
    held: () => held.filter((s) => !s.released).length,
    requests: () => held.length,
    hide() {
      visible = false;
      // The browser releases a screen wake lock when the page is hidden.
      for (const s of held) {
        if (s.released) continue;
        s.released = true;
        s.onRelease.forEach((l) => l());
      }
    },
    show() {
      visible = true;
      for (const l of listeners) l();
    },
    refuse(value: boolean) {
      refuse = value;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WakeLockKeeper', () => {
  it('holds the lock while sending, lets go when sending ends', async () => {
    const browser = fakeBrowser();
    const statuses: WakeLockStatus[] = [];
    const keeper = new WakeLockKeeper(browser.port, (s) => statuses.push(s));
    expect(keeper.current).toBe('off');
    keeper.want(true);
    await settle();
    expect(browser.held()).toBe(1);
    expect(keeper.current).toBe('held');
    keeper.want(false);
    await settle();
    expect(browser.held()).toBe(0);
    expect(statuses).toEqual(['held', 'off']);
  });

  it('asks again when the tab comes back (the browser let go while it was hidden), only while still wanted', async () => {
    const browser = fakeBrowser();
    const keeper = new WakeLockKeeper(browser.port);
    keeper.want(true);
    await settle();
    browser.hide();
    expect(keeper.current).toBe('waiting');
    browser.show();
    await settle();
    expect(browser.held()).toBe(1);
    expect(browser.requests()).toBe(2);
    keeper.want(false);
    browser.hide();
    browser.show();
    await settle();
    expect(browser.held()).toBe(0);
    expect(browser.requests()).toBe(2);
  });

  it('a refusal leaves it waiting, asked again on the next return; hidden at the start, it waits for the tab', async () => {
    const browser = fakeBrowser();
    browser.refuse(true);
    const keeper = new WakeLockKeeper(browser.port);
    keeper.want(true);
    await settle();
    expect(keeper.current).toBe('waiting');
    browser.refuse(false);
    browser.show();
    await settle();
    expect(keeper.current).toBe('held');

    const hidden = fakeBrowser();
    hidden.hide();
    const later = new WakeLockKeeper(hidden.port);
    later.want(true);
    await settle();
    expect(hidden.requests()).toBe(0);
    hidden.show();
    await settle();
    expect(later.current).toBe('held');
  });

  it('without the API: unsupported, and nothing is asked', async () => {
    const keeper = new WakeLockKeeper({ request: null, visible: () => true, onVisible: () => () => undefined });
    keeper.want(true);
    await settle();
    expect(keeper.current).toBe('unsupported');
  });

  it('dispose lets go and stops listening', async () => {
    const browser = fakeBrowser();
    const keeper = new WakeLockKeeper(browser.port);
    keeper.want(true);
    await settle();
    keeper.dispose();
    await settle();
    expect(browser.held()).toBe(0);
    browser.show();
    await settle();
    expect(browser.requests()).toBe(1);
  });
});

describe('the tab title', () => {
  it('says how far the batch got, that it is paused, and how it ended', () => {
    expect(uploadTitle({ kind: 'idle' }, 'TrailSense')).toBeNull();
    expect(uploadTitle({ kind: 'sending', uploaded: 37, total: 100, paused: false }, 'TrailSense')).toBe('37 % uploaded — TrailSense');
    expect(uploadTitle({ kind: 'sending', uploaded: 37, total: 100, paused: true }, 'TrailSense')).toBe('Paused at 37 % — TrailSense');
    expect(uploadTitle({ kind: 'ended', uploaded: 100, failed: 0, stopped: false }, 'TrailSense')).toBe('Upload finished — TrailSense');
    expect(uploadTitle({ kind: 'ended', uploaded: 98, failed: 2, stopped: false }, 'TrailSense')).toBe('Upload finished, 2 failed — TrailSense');
    expect(uploadTitle({ kind: 'ended', uploaded: 12, failed: 0, stopped: true }, 'TrailSense')).toBe('Upload stopped — TrailSense');
  });
});

describe('the end notification', () => {
  function port(permission: NotificationPermissionState) {
    const calls = { requests: 0 };
    const p: NotificationPort = {
      permission: () => permission,
      request: async () => {
        calls.requests++;
        return 'granted';
      },
      show: () => undefined,
    };
    return { p, calls };
  }

  it('is asked for once per browser, and only while the browser has not been answered', async () => {
    let asked = false;
    const record = { asked: () => asked, markAsked: () => void (asked = true) };
    const fresh = port('default');
    await askOnce(fresh.p, record);
    await askOnce(fresh.p, record);
    expect(fresh.calls.requests).toBe(1);
    for (const answered of ['granted', 'denied', 'unsupported'] as const) {
      const other = port(answered);
      await askOnce(other.p, { asked: () => false, markAsked: () => undefined });
      expect(other.calls.requests).toBe(0);
    }
  });

  it('says how the batch ended, with the counts', () => {
    expect(endNotification({ sent: 1234, skipped: 3, failed: 1, stopped: false }, 'TrailSense')).toEqual({
      title: 'TrailSense: upload finished',
      body: '1,234 sent, 3 skipped, 1 failed.',
    });
    expect(endNotification({ sent: 5, skipped: 0, failed: 0, stopped: true }, 'TrailSense').title).toBe('TrailSense: upload stopped');
  });
});
