import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

// ulid's own PRNG asks the OS for one byte per character (16 calls per id, each a randomFillSync):
// measured at ~200 us of CPU per partner request. One 4 KiB draw serves 256 ids. Each character
// takes the low 5 bits of a fresh byte, so every one of the 32 symbols is equally likely.
const pool = new Uint8Array(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return (pool[used++]! & 31) / 32;
}

// Monotonic: ids made in the same millisecond still sort in creation order, so lists paginated by id
// (newest first) are stable. Across processes, ids of one millisecond sort arbitrarily among themselves.
const next = monotonicFactory(pooledRandom);

export function newId(): string {
  return next();
}

/** A request id, as returned in X-Request-Id and error bodies. */
export function newRequestId(): string {
  return `req_${next()}`;
}

/** The lowest id of a moment: ids sort by creation time, so `id >= idFloor(t)` is a range on a primary key. */
export function idFloor(at: Date): string {
  return encodeTime(Math.max(0, at.getTime()), 10) + '0000000000000000';
}

/**
 * The lowest id of an attempt started at or after `at`: attempt ids are made when the attempt is recorded, after it
 * started, so this bound (a minute early, for the clocks of several workers) lets a condition on started_at prune
 * the attempt partitions (RANGE (id)) that end before it.
 */
export function attemptIdFloor(at: Date): string {
  return idFloor(new Date(at.getTime() - 60_000));
}
