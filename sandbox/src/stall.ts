/**
 * The S3 PUT stall switch: the next N object PUTs are held — accepted, their body never read, no
 * answer ever sent — as when an upload's connection stalls on the way (the client's own timeout
 * or abort is what a test exercises). A held request ends when its client closes the connection,
 * or after `HOLD_LIMIT_MS` so no socket is kept forever.
 */
import type { Socket } from 'node:net';

/** The most a held request is kept; longer than any client timeout a test would wait for. */
export const HOLD_LIMIT_MS = 10 * 60_000;
/** The most PUTs one switch may hold. */
export const MAX_STALLS = 1000;

export interface PutStallState {
  /** How many PUTs have been held so far (since start). */
  held: number;
  /** How many of the requested ones are still to be held. */
  pending: number;
}

/** Reads a stall count: a whole number 0..MAX_STALLS ("" = 0); the message says what is wrong. */
export function parseStallCount(spec: string): number | string {
  const text = spec.trim();
  if (text === '') return 0;
  if (!/^\d+$/.test(text)) return `bad S3 PUT stall "${spec}": expected a whole number of PUTs to hold, 0 to ${MAX_STALLS}`;
  const count = Number(text);
  if (count > MAX_STALLS) return `bad S3 PUT stall "${spec}": at most ${MAX_STALLS} PUTs can be held`;
  return count;
}

export interface PutStall {
  /** Holds the next `count` object PUTs (replacing what was pending; 0 stops holding new ones). */
  set(count: number): void;
  /** Called for each object PUT: true when this one is to be held (and counts it). */
  take(): boolean;
  state(): PutStallState;
}

export function createPutStall(): PutStall {
  let pending = 0;
  let held = 0;
  return {
    set: (count) => {
      pending = count;
    },
    take: () => {
      if (pending === 0) return false;
      pending--;
      held++;
      return true;
    },
    state: () => ({ held, pending }),
  };
}

/**
 * Waits until `socket` closes (the client gave up) or `limitMs` passes, then makes sure it is
 * closed. Nothing is read from it: the client's upload stalls once the socket buffers are full.
 * A client that leaves is seen at once while the socket is still being read (a small body that
 * arrived whole); behind an unread large body the kernel holds its close, and the limit ends it.
 */
export function holdUntilClosed(socket: Socket, limitMs = HOLD_LIMIT_MS): Promise<'closed' | 'limit'> {
  return new Promise((resolve) => {
    if (socket.destroyed) {
      resolve('closed');
      return;
    }
    const onClose = () => {
      clearTimeout(timer);
      resolve('closed');
    };
    const timer = setTimeout(() => {
      socket.off('close', onClose);
      socket.destroy();
      resolve('limit');
    }, limitMs);
    // A held request must not keep a stopping process alive.
    timer.unref();
    socket.once('close', onClose);
  });
}
