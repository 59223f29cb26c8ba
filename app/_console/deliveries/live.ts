// How soon a page that shows deliveries reads them again (usePoll): often while one is on its way; while the
// only pending ones wait for a retry, when the first is due (retry-schedule.ts puts them minutes to hours
// away: reading every 2 s until then reads the same rows for hours); never once none is pending.

/** A delivery in flight or due: its outcome is seconds away. */
export const ON_THE_WAY_MS = 2000;
/** The longest wait between reads while retries are scheduled: a redelivery, or a disabled subscription, moves one sooner. */
export const RETRY_WAIT_MAX_MS = 30_000;

/** From now until `dueAt`, whole seconds, at least `soonMs` and at most RETRY_WAIT_MAX_MS. */
export function delayUntil(dueAt: number, now: number, soonMs = ON_THE_WAY_MS): number {
  return Math.min(Math.max(Math.ceil((dueAt - now) / 1000) * 1000, soonMs), RETRY_WAIT_MAX_MS);
}

/**
 * When to read deliveries again: null when none is pending; `soonMs` when one is in flight or due (no next
 * attempt time, or one already passed); else when the first scheduled retry is due (delayUntil).
 */
export function refreshDelay(
  deliveries: readonly { outcome: string; nextAttemptAt?: string | null }[],
  now: number,
  soonMs = ON_THE_WAY_MS,
): number | null {
  const due = deliveries.filter((d) => d.outcome === 'pending').map((d) => (d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : now));
  if (due.length === 0) return null;
  const first = Math.min(...due);
  return first <= now ? soonMs : delayUntil(first, now, soonMs);
}

/** The sooner of two delays, null for neither: a page that follows two things reads when either asks. */
export function soonest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
