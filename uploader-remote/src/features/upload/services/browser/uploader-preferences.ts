import { parseCap, storedCap, type UploadCap } from '../../model/upload-cap';

/**
 * What the uploader remembers on this browser between visits, besides the journal: which camera a
 * ranch's photos of one make, model and serial were sent as (so the next card from that camera
 * preselects it), and the recent upload speed (so the summary before Upload can say how long a
 * batch will take). Small, read at once, and harmless to lose: localStorage, not IndexedDB.
 */
export interface UploaderPreferences {
  /** The ranch's remembered cameras: camera key (model/camera-match.ts) → camera name. */
  cameraNames(ranchId: string): Map<string, string>;
  rememberCamera(ranchId: string, cameraKey: string, cameraName: string): void;
  /** The speed of the latest batches in bytes per second, or null if none was measured. */
  recentSpeed(): number | null;
  setRecentSpeed(bytesPerSecond: number): void;
  /**
   * Reservations of upload slots a batch of this browser holds for the ranch
   * (controller/stages/admit/slot-broker.ts): a batch that never ended (a reload, a crash) leaves
   * them, and the next one gives them back.
   */
  openReservations(ranchId: string): string[];
  setOpenReservations(ranchId: string, reservations: readonly string[]): void;
  /** Whether the computer is kept awake while a batch sends (default yes). */
  keepAwake(): boolean;
  setKeepAwake(keep: boolean): void;
  /** "Send smaller copies" (default no). */
  sendCopies(): boolean;
  setSendCopies(on: boolean): void;
  /** "Upload speed": the member's cap (default none; model/upload-cap.ts). */
  uploadCap(): UploadCap;
  setUploadCap(cap: UploadCap): void;
  /** Whether this browser was asked for notifications already (asked once, when a batch starts). */
  notificationsAsked(): boolean;
  setNotificationsAsked(): void;
}

/** A ranch keeps at most this many remembered cameras (the most recently used). */
export const MAX_REMEMBERED_CAMERAS = 50;

const cameraItem = (ranchId: string) => `trailsense:cameras:${ranchId}`;
const SPEED_ITEM = 'trailsense:upload-speed';
const reservationsItem = (ranchId: string) => `trailsense:reservations:${ranchId}`;
const KEEP_AWAKE_ITEM = 'trailsense:keep-awake';
const NOTIFICATIONS_ASKED_ITEM = 'trailsense:notifications-asked';
const SEND_COPIES_ITEM = 'trailsense:send-copies';
const UPLOAD_CAP_ITEM = 'trailsense:upload-cap';

/** The part of Storage used (tests pass a Map-backed one). */
export type PreferenceStorage = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * Preferences in `storage` (the page's localStorage). Storage that throws (disabled, full, a
 * private window) or holds something unreadable is treated as empty: remembering is a convenience,
 * never a reason for the uploader to fail.
 */
export function storedPreferences(storage: PreferenceStorage | null): UploaderPreferences {
  const read = (item: string): unknown => {
    try {
      const text = storage?.getItem(item);
      return text ? (JSON.parse(text) as unknown) : null;
    } catch {
      return null;
    }
  };
  const write = (item: string, value: unknown) => {
    try {
      storage?.setItem(item, JSON.stringify(value));
    } catch {
      // Not remembered this time.
    }
  };
  const cameraPairs = (ranchId: string): [string, string][] => {
    const stored = read(cameraItem(ranchId));
    if (!Array.isArray(stored)) return [];
    return stored.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string');
  };
  return {
    cameraNames: (ranchId) => new Map(cameraPairs(ranchId)),
    rememberCamera(ranchId, cameraKey, cameraName) {
      // Most recent first; the oldest fall off.
      const pairs = [[cameraKey, cameraName] as [string, string], ...cameraPairs(ranchId).filter(([key]) => key !== cameraKey)];
      write(cameraItem(ranchId), pairs.slice(0, MAX_REMEMBERED_CAMERAS));
    },
    recentSpeed() {
      const stored = read(SPEED_ITEM);
      return typeof stored === 'number' && Number.isFinite(stored) && stored > 0 ? stored : null;
    },
    setRecentSpeed(bytesPerSecond) {
      if (Number.isFinite(bytesPerSecond) && bytesPerSecond > 0) write(SPEED_ITEM, Math.round(bytesPerSecond));
    },
    openReservations(ranchId) {
      const stored = read(reservationsItem(ranchId));
      return Array.isArray(stored) ? stored.filter((id): id is string => typeof id === 'string').slice(0, 100) : [];
    },
    setOpenReservations(ranchId, reservations) {
      write(reservationsItem(ranchId), [...reservations]);
    },
    keepAwake: () => read(KEEP_AWAKE_ITEM) !== false,
    setKeepAwake: (keep) => write(KEEP_AWAKE_ITEM, keep),
    sendCopies: () => read(SEND_COPIES_ITEM) === true,
    setSendCopies: (on) => write(SEND_COPIES_ITEM, on),
    uploadCap: () => parseCap(read(UPLOAD_CAP_ITEM)),
    setUploadCap: (cap) => write(UPLOAD_CAP_ITEM, storedCap(cap)),
    notificationsAsked: () => read(NOTIFICATIONS_ASKED_ITEM) === true,
    setNotificationsAsked: () => write(NOTIFICATIONS_ASKED_ITEM, true),
  };
}

/** The page's localStorage, or null where reading it throws (storage disabled). */
export function pageStorage(): PreferenceStorage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
