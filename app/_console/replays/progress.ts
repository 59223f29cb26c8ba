import { delayUntil, RETRY_WAIT_MAX_MS } from '../deliveries/live';

/** What the replay row reads (the Replay fields of the operator API). */
export interface ReplayView {
  status: 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
  phase: 'sending' | 'delivering' | 'retrying' | 'settled';
  matched: number;
  enqueued: number;
  delivered: number;
  failed: number;
  skipped: number;
  pending: number;
  retrying: number;
  nextRetryAt: string | null;
}

/** While a replay sends pages or its deliveries are in flight: once a second is live enough to watch, and cheap (two statements). */
export const REPLAY_LIVE_MS = 1000;

/**
 * The bar follows the counts: what ended (delivered, failed or skipped) out of the events matched while pages
 * are still being sent, then out of what it sent (its deliveries now). It is full only when nothing of it is
 * pending: never because the replay's status says completed (every page enqueued, nothing yet delivered).
 */
export function progressOf(r: Pick<ReplayView, 'phase' | 'matched' | 'delivered' | 'failed' | 'skipped' | 'pending'>): {
  value: number;
  max: number;
} {
  const ended = r.delivered + r.failed + r.skipped;
  if (r.phase === 'sending') {
    const max = Math.max(r.matched, 1);
    return { value: Math.min(ended, max), max };
  }
  const max = Math.max(ended + r.pending, 1);
  return { value: ended + r.pending === 0 ? max : ended, max };
}

/** "3 delivered, 0 failed, 1 on the way, 2 retrying of 6": the counts beside the bar. */
export function progressText(r: Omit<ReplayView, 'status' | 'nextRetryAt'>): string {
  const parts = [`${r.delivered} delivered`, `${r.failed} failed`];
  if (r.skipped > 0) parts.push(`${r.skipped} skipped`);
  if (r.pending > r.retrying) parts.push(`${r.pending - r.retrying} on the way`);
  if (r.retrying > 0) parts.push(`${r.retrying} retrying`);
  const of = r.phase === 'sending' || r.enqueued === r.matched ? `of ${r.matched}` : `of ${r.enqueued} sent (${r.matched} matched)`;
  return `${parts.join(', ')} ${of}`;
}

/**
 * The word in the Status column: the replay's status while it sends pages and once it settled; between,
 * what its deliveries do (`delivering`, `retrying`), so "completed" is never shown while one is on its way.
 * `note` says what the status alone would hide.
 */
export function stateOf(r: Pick<ReplayView, 'status' | 'phase'>): { word: string; note: string | null } {
  if (r.phase === 'sending' || r.phase === 'settled') return { word: r.status, note: null };
  const note = r.status === 'completed' ? 'every event sent' : `${r.status}: what was sent finishes`;
  return { word: r.phase, note };
}

/**
 * When to read the list again: REPLAY_LIVE_MS while one sends or delivers; while the rest only wait for
 * scheduled retries, when the first is due (at most RETRY_WAIT_MAX_MS away); never once all settled.
 */
export function replayRefreshDelay(replays: readonly Pick<ReplayView, 'phase' | 'nextRetryAt'>[], now: number): number | null {
  if (replays.some((r) => r.phase === 'sending' || r.phase === 'delivering')) return REPLAY_LIVE_MS;
  const retrying = replays.filter((r) => r.phase === 'retrying');
  if (retrying.length === 0) return null;
  const due = retrying.map((r) => (r.nextRetryAt ? Date.parse(r.nextRetryAt) : now + RETRY_WAIT_MAX_MS));
  return delayUntil(Math.min(...due), now, REPLAY_LIVE_MS);
}
