/**
 * Deterministic randomness for the link emulator: a profile's timeline is drawn from a seed by
 * position (`unitAt(seed, …)`: the same numbers for the same slot, whichever slot is asked first,
 * so any moment of a timeline is computed alone), and the proxy's loss decisions come from one
 * seeded sequence (`seededRandom`). No `Math.random`: a run can be repeated.
 */

/** A 32-bit hash of whole numbers (murmur3's finaliser over each, chained). */
function hash32(values: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    h = Math.imul(h ^ (value >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A number in [0, 1) fixed by the seed and the position (slot index, salt …). */
export function unitAt(seed: number, ...position: number[]): number {
  return hash32([seed, ...position]) / 2 ** 32;
}

/** A standard normal number fixed by the seed and the position (Box–Muller on two units). */
export function normalAt(seed: number, ...position: number[]): number {
  const u = Math.max(unitAt(seed, ...position, 1), 1e-12);
  const v = unitAt(seed, ...position, 2);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A sequence of numbers in [0, 1) from a seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
