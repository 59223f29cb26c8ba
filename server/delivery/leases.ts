import { sql, type SQL } from 'drizzle-orm';
import { withTransaction, type Ctx } from '../context';
import { enqueueMany } from '../outbox/enqueue';
import { DELIVER } from '../outbox/queues';
import { HEARTBEAT_STALE_SECONDS } from '../workers/heartbeat';
import { anyOf, anyOfRaw } from '@/db/lists';
import { plannedEachTime } from '@/db/client';

// A worker's claims are leases, each marked with its holder (the worker's heartbeat id): it renews those
// it holds, gives back those it will not send, and any worker returns the ones whose holder died.
// Returning an attempt un-counts it and enqueues a deliver job for it in the same transaction, so
// whichever worker fetches the job claims and sends it again.

// Any constant; only sweepers need to agree on it.
const SWEEP_LOCK = 728_463_105;

/**
 * How long a sweeper may sit idle inside its transaction before Postgres ends its session, and with it
 * the sweep lock and the rows it locked. A sweep's statements follow each other within milliseconds;
 * only a process that stopped between them (SIGSTOP, a GC pause of seconds, a blocked event loop) waits
 * longer. Without the bound such a process held the lock for as long as it was frozen, so no other worker
 * returned a dead worker's claims: test/webhooks/stall.test.ts "past the heartbeat" timed out in about
 * half of its runs on 2026-11-27, the frozen worker still holding the claims it had been sweeping.
 */
export const SWEEP_IDLE_LIMIT_SECONDS = 5;

/**
 * Extends the claims this worker still holds (in flight, waiting in its memory, or awaiting their
 * record), given as delivery id to event id, and answers which those are. One missing from the answer
 * was taken from it while its renewals were late (see `returnable`): it must not be sent, and its
 * outcome is not recorded. The events name the weeks to read and bound the scan, as when recording
 * (record-outcomes.ts, eventsOf): by ids alone a burst's renewal read the whole pending index, 260-290 ms
 * for 4,000 claims.
 */
export async function renewClaims(ctx: Ctx, holder: string, held: ReadonlyMap<string, string>): Promise<Set<string>> {
  if (held.size === 0) return new Set();
  const kept = await plannedEachTime(ctx.sql<{ id: string }[]>`
    update webhook_deliveries set claimed_until = now() + make_interval(secs => ${ctx.env.WEBHOOK_CLAIM_SECONDS})
    where id = ${anyOfRaw(ctx.sql, [...held.keys()])} and event_id = ${anyOfRaw(ctx.sql, [...new Set(held.values())])}
      and status = 'pending' and claimed_by = ${holder}
    returning id`);
  return new Set(kept.map((r) => r.id));
}

/** Gives held attempts back unsent (a subscription over its share, a worker stopping); those no longer held are left alone. */
export async function releaseClaims(ctx: Ctx, holder: string, deliveryIds: readonly string[], startAfterSeconds = 0): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  return withTransaction(ctx, (tx) => returnClaims(tx, sql`claimed_by = ${holder} and id = ${anyOf(deliveryIds)}`, startAfterSeconds));
}

/**
 * The sweeper, run by every worker in turn: returns to the queue the attempts whose claims are
 * `returnable` by this worker. The claims of dead workers are returned by one sweeper at a time
 * (another finds the lock taken and leaves them); the worker's own dropped claims, by itself.
 */
export async function returnExpiredClaims(ctx: Ctx, sweeper: { holder: string; holds: readonly string[] }, limit = 1000): Promise<number> {
  return withTransaction(ctx, async (tx) => returnClaims(tx, returnable({ ...sweeper, othersToo: await takeSweepLock(tx) }), 0, limit));
}

/**
 * Takes the sweep lock for the open transaction if no other sweeper holds it, and bounds the transaction's
 * idle time (SWEEP_IDLE_LIMIT_SECONDS) in the same statement, so a sweeper that stops holding it loses it.
 */
export async function takeSweepLock(tx: Ctx): Promise<boolean> {
  const [lock] = await tx.db.execute<{ ok: boolean }>(sql`
    select set_config('idle_in_transaction_session_timeout', ${`${SWEEP_IDLE_LIMIT_SECONDS}s`}, true) as idle_limit,
           pg_try_advisory_xact_lock(${SWEEP_LOCK}) as ok`);
  return lock?.ok === true;
}

/**
 * When a lapsed claim goes back to the queue. A claim lapses when its holder has not renewed it for
 * WEBHOOK_CLAIM_SECONDS; that alone does not make it returnable, because a holder whose event loop
 * stalls (renewals late) still holds its attempts and sends them when it wakes. It is returned:
 *
 * - by any sweeper, when its holder is dead: no heartbeat for HEARTBEAT_STALE_SECONDS (a drained worker
 *   deletes its own at once), or no holder recorded (claimed by a version before holders were);
 * - by its holder, when the holder no longer holds it: the attempt ended without a record (the write
 *   failed) or its claim was never taken up.
 *
 * So a holder's claims are taken only after both its claim and its heartbeat lapsed: a dead worker's
 * attempts come back within max(WEBHOOK_CLAIM_SECONDS, HEARTBEAT_STALE_SECONDS) + a sweep interval;
 * a process that stalls for less than HEARTBEAT_STALE_SECONDS minus a heartbeat (10 s) keeps them
 * whatever the claim's length. A longer stall loses them, and the woken holder learns it from its
 * renewal (renewClaims) before it sends anything.
 */
function returnable({ holder, holds, othersToo }: { holder: string; holds: readonly string[]; othersToo: boolean }): SQL {
  const dropped = sql`(claimed_by = ${holder} and not id = ${anyOf(holds)})`;
  const holderDead = sql`(claimed_by is distinct from ${holder} and not exists (
    select 1 from worker_heartbeats h
    where h.id = webhook_deliveries.claimed_by and h.beat_at >= now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS})))`;
  return sql`claimed_until < now() and ${othersToo ? sql`(${dropped} or ${holderDead})` : dropped}`;
}

async function returnClaims(tx: Ctx, where: SQL, startAfterSeconds: number, limit = 100_000): Promise<number> {
  const returned = await tx.db.execute<{ id: string; event_id: string; subscription_id: string; attempts: number }>(sql`
    update webhook_deliveries set claimed_until = null, claimed_by = null, attempts = attempts - 1, updated_at = now()
    where id in (select id from webhook_deliveries where status = 'pending' and claimed_until is not null and ${where}
                 order by claimed_until limit ${limit} for update skip locked)
    returning id, event_id, subscription_id, attempts`);
  await enqueueMany(
    tx,
    DELIVER,
    returned.map((d) => ({
      data: { delivery_id: d.id, event_id: d.event_id, subscription_id: d.subscription_id, attempt: d.attempts + 1 },
      startAfterSeconds,
    })),
  );
  return returned.length;
}
