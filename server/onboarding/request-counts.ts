import { sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { partnerRequestCounts } from '@/db/schema';
import type { Environment } from '../context';

/** Refused as invalid for the go-live checklist: the client sent something the API could not take. */
const INVALID = new Set([400, 404, 409, 415, 422]);

interface Tally {
  partnerId: string;
  environment: Environment;
  day: string;
  requests: number;
  invalid: number;
  replayed: number;
}

/**
 * Partner requests per partner, environment and day, counted in memory and added to
 * partner_request_counts in batches: the request path only bumps a map entry, and a busy partner costs
 * one upsert per flush rather than one per request. Idempotent replays (answered from a stored
 * response) are counted the same way: the checklist's "an Idempotency-Key retry" item reads them.
 */
export class RequestCounter {
  private tallies = new Map<string, Tally>();

  count(partnerId: string, environment: Environment, status: number, replayed: boolean, now = Date.now()): void {
    const day = utcDay(now);
    const key = `${partnerId}\u0000${environment}\u0000${day}`;
    let tally = this.tallies.get(key);
    if (!tally) this.tallies.set(key, (tally = { partnerId, environment, day, requests: 0, invalid: 0, replayed: 0 }));
    tally.requests += 1;
    if (INVALID.has(status)) tally.invalid += 1;
    if (replayed) tally.replayed += 1;
  }

  /** Adds what was counted since the last flush; on failure the counts are kept for the next one. */
  async flush(db: Executor): Promise<void> {
    if (this.tallies.size === 0) return;
    const batch = [...this.tallies.values()];
    this.tallies = new Map();
    try {
      await db
        .insert(partnerRequestCounts)
        .values(
          batch.map(({ partnerId, environment, day, requests, invalid, replayed }) => ({
            partnerId,
            environment,
            day,
            requests,
            invalid,
            replayed,
          })),
        )
        .onConflictDoUpdate({
          target: [partnerRequestCounts.partnerId, partnerRequestCounts.environment, partnerRequestCounts.day],
          set: {
            requests: sql`${partnerRequestCounts.requests} + excluded.requests`,
            invalid: sql`${partnerRequestCounts.invalid} + excluded.invalid`,
            replayed: sql`${partnerRequestCounts.replayed} + excluded.replayed`,
          },
        });
    } catch (error) {
      for (const t of batch) {
        const key = `${t.partnerId}\u0000${t.environment}\u0000${t.day}`;
        const kept = this.tallies.get(key);
        if (kept) {
          kept.requests += t.requests;
          kept.invalid += t.invalid;
          kept.replayed += t.replayed;
        } else this.tallies.set(key, t);
      }
      throw error;
    }
  }
}

const DAY_MS = 86_400_000;
let dayStart = 0;
let dayText = '';

/** The UTC date of `ms` as YYYY-MM-DD, written out once a day rather than once a request (a Date and an ISO string each). */
function utcDay(ms: number): string {
  if (ms < dayStart || ms >= dayStart + DAY_MS) {
    dayStart = ms - (ms % DAY_MS);
    dayText = new Date(dayStart).toISOString().slice(0, 10);
  }
  return dayText;
}

/** Flushes every `everyMs` (5 s) and once more on stop. */
export function flushRequestCountsPeriodically(
  counter: RequestCounter,
  db: Executor,
  onError: (error: unknown) => void,
  everyMs = 5000,
): () => Promise<void> {
  const timer = setInterval(() => void counter.flush(db).catch(onError), everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await counter.flush(db).catch(onError);
  };
}
