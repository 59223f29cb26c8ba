import { monotonicFactory } from 'ulid';

// Monotonic: ids made in the same millisecond still sort in creation order, so lists paginated by id
// (newest first) are stable. Across processes, ids of one millisecond sort arbitrarily among themselves.
const next = monotonicFactory();

export function newId(): string {
  return next();
}
