import { and, eq, isNull, sql } from 'drizzle-orm';
import { webhookReplays, webhookSubscriptions } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { enqueue } from '../outbox/enqueue';
import { REPLAY_PAGE } from '../outbox/queues';
import { resendEvents } from '../webhooks/resend';
import { requesterOfReplay, windowOf } from './present';
import { acceptedTypes } from '../events/catalog';
import { nextMatching } from './select';
import { receivesDeliveries } from '../delivery/disabled';

// Events per page, and the pacing: the next page waits while half a page of this replay's deliveries
// is still on its way, and backs off while the receiver is failing. So a backfill follows the
// receiver's pace, and the engine's in-flight bound and live-first slots do the rest.
const PAGE = 200;
const WAIT_SECONDS = 0.1;
const FAILING_BACKOFF_SECONDS = 10;
// The page's job first watches the pending count itself for up to a second: a job delayed by
// WAIT_SECONDS is only fetched at pg-boss's next poll (every 0.5 s), and that poll, not the receiver,
// set a 100,000-event replay's pace (871 events/s, about one page every 0.23 s).
const WATCH_MS = 1000;
const WATCH_EVERY_MS = 20;

export type PageOutcome = 'stale' | 'waiting' | 'sent' | 'completed' | 'failed';

/**
 * One step of a replay, in one transaction: the next page of matching events after the cursor is
 * sent again, the cursor moves past it, and the next step is enqueued. A job whose step has passed
 * does nothing, so a retried job never sends a page twice; a dead worker's job is retried within
 * the queue's bound and resumes from the stored cursor.
 */
export async function runReplayPage({ ctx, input }: { ctx: Ctx; input: { replayId: string; step: number } }): Promise<PageOutcome> {
  for (const until = performance.now() + WATCH_MS; performance.now() < until;) {
    if ((await pendingOf(ctx, input.replayId)) < PAGE / 2) break;
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
  }
  return withTransaction(ctx, async (tx) => {
    const [replay] = await tx.db.select().from(webhookReplays).where(eq(webhookReplays.id, input.replayId)).for('update');
    if (!replay || replay.jobStep !== input.step || (replay.status !== 'queued' && replay.status !== 'running')) return 'stale';
    const next = input.step + 1;
    const finish = async (status: 'completed' | 'failed') => {
      await tx.db.update(webhookReplays).set({ status, jobStep: next, completedAt: new Date() }).where(eq(webhookReplays.id, replay.id));
      return status;
    };
    const [sub] = await tx.db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, replay.subscriptionId), isNull(webhookSubscriptions.deletedAt)));
    if (!sub || !receivesDeliveries(sub)) return finish('failed');

    const wait = sub.failingSince ? FAILING_BACKOFF_SECONDS : (await pendingOf(tx, replay.id)) >= PAGE / 2 ? WAIT_SECONDS : 0;
    if (wait > 0) {
      await tx.db
        .update(webhookReplays)
        .set({ status: 'running', jobStep: next, startedAt: replay.startedAt ?? new Date() })
        .where(eq(webhookReplays.id, replay.id));
      await enqueue(tx, REPLAY_PAGE, { replay_id: replay.id, step: next }, { startAfterSeconds: wait });
      return 'waiting';
    }

    const page = await nextMatching(tx, windowOf(replay, replay.eventTypes ?? acceptedTypes(sub.eventFilters)), replay.cursor, PAGE);
    const sent = await resendEvents(tx, {
      subscriptionId: sub.id,
      events: page.events,
      apiVersion: sub.apiVersion,
      trigger: 'replay',
      requestedBy: requesterOfReplay(replay.requestedBy),
      replayId: replay.id,
    });
    await tx.db
      .update(webhookReplays)
      .set({
        status: 'running',
        jobStep: next,
        cursor: page.readTo,
        eventsEnqueued: replay.eventsEnqueued + sent.length,
        startedAt: replay.startedAt ?? new Date(),
      })
      .where(eq(webhookReplays.id, replay.id));
    if (page.exhausted) return finish('completed');
    await enqueue(tx, REPLAY_PAGE, { replay_id: replay.id, step: next });
    return 'sent';
  });
}

/** The replay's deliveries on their way: claimed, or waiting for their first attempt. */
async function pendingOf(ctx: Ctx, replayId: string): Promise<number> {
  const [busy] = await ctx.db.execute<{ n: number }>(sql`
    select count(*)::int as n from webhook_deliveries
    where replay_id = ${replayId} and status = 'pending' and (claimed_until is not null or next_attempt_at is null)`);
  return busy?.n ?? 0;
}
