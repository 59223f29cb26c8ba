import { and, eq, isNull } from 'drizzle-orm';
import { webhookReplays, webhookSubscriptions } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { enqueue } from '../outbox/enqueue';
import { REPLAY_PAGE } from '../outbox/queues';
import { resendClaimed } from '../webhooks/resend';
import type { ClaimedAttempt } from '../delivery/claimed-attempt';
import { requesterOfReplay, windowOf } from './present';
import { acceptedTypes } from '../events/catalog';
import { nextMatching } from './select';
import { receivesDeliveries } from '../delivery/disabled';

// The pacing: a page is as large as the room the worker's delivery engine has for the replay's
// attempts (ReplayEngine.replayRoom: about a second of what the receiver took lately), claimed in the
// engine's name in the page's transaction; the next page waits for that room, and backs off while the
// receiver is failing. So a backfill follows the receiver's pace, and the engine's in-flight bound and
// live-first slots do the rest.
const WAIT_SECONDS = 0.1;
const FAILING_BACKOFF_SECONDS = 10;
// The page's job first watches the engine's room itself for up to a second: a job delayed by
// WAIT_SECONDS is only fetched at pg-boss's next poll (every 0.5 s), and that poll, not the receiver,
// set a 100,000-event replay's pace (871 events/s, about one page every 0.23 s). The room is a
// number in this process's memory, so watching it costs no statement.
const WATCH_MS = 1000;
const WATCH_EVERY_MS = 10;

export type PageOutcome = 'stale' | 'waiting' | 'sent' | 'completed' | 'failed';

/** The delivery engine of the worker running the page (jobs/delivery-engine.ts). */
export interface ReplayEngine {
  /** Whose name the page's attempts are claimed in. */
  readonly holder: string;
  /** How many replayed attempts of the subscription it takes now; 0: none yet. */
  replayRoom(subscriptionId: string): number;
}

/**
 * One step of a replay, in one transaction: the next page of matching events after the cursor is
 * sent again (each delivery's attempt claimed for `engine`, handed back in `claimed` for it to make
 * once the transaction committed), the cursor moves past it, and the next step is enqueued. A job
 * whose step has passed does nothing, so a retried job never sends a page twice; a dead worker's job
 * is retried within the queue's bound and resumes from the stored cursor, and the attempts it held
 * are returned to the queue once their claims lapse.
 */
export async function runReplayPage({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { replayId: string; step: number; engine: ReplayEngine };
}): Promise<{ outcome: PageOutcome; claimed: ClaimedAttempt[] }> {
  const { engine } = input;
  const [target] = await ctx.db
    .select({ subscriptionId: webhookReplays.subscriptionId })
    .from(webhookReplays)
    .where(eq(webhookReplays.id, input.replayId));
  for (const until = performance.now() + WATCH_MS; target && performance.now() < until;) {
    if (engine.replayRoom(target.subscriptionId) > 0) break;
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
  }
  const none: ClaimedAttempt[] = [];
  return withTransaction(ctx, async (tx) => {
    const [replay] = await tx.db.select().from(webhookReplays).where(eq(webhookReplays.id, input.replayId)).for('update');
    if (!replay || replay.jobStep !== input.step || (replay.status !== 'queued' && replay.status !== 'running')) {
      return { outcome: 'stale', claimed: none };
    }
    const next = input.step + 1;
    const finish = async (status: 'completed' | 'failed') => {
      await tx.db.update(webhookReplays).set({ status, jobStep: next, completedAt: new Date() }).where(eq(webhookReplays.id, replay.id));
      return { outcome: status, claimed };
    };
    let claimed = none;
    const [sub] = await tx.db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, replay.subscriptionId), isNull(webhookSubscriptions.deletedAt)));
    if (!sub || !receivesDeliveries(sub)) return finish('failed');

    const room = engine.replayRoom(sub.id);
    const wait = sub.failingSince ? FAILING_BACKOFF_SECONDS : room === 0 ? WAIT_SECONDS : 0;
    if (wait > 0) {
      await tx.db
        .update(webhookReplays)
        .set({ status: 'running', jobStep: next, startedAt: replay.startedAt ?? new Date() })
        .where(eq(webhookReplays.id, replay.id));
      await enqueue(tx, REPLAY_PAGE, { replay_id: replay.id, step: next }, { startAfterSeconds: wait });
      return { outcome: 'waiting', claimed: none };
    }

    const page = await nextMatching(tx, windowOf(replay, replay.eventTypes ?? acceptedTypes(sub.eventFilters)), replay.cursor, room);
    claimed = await resendClaimed(tx, {
      subscription: sub,
      holder: engine.holder,
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
        eventsEnqueued: replay.eventsEnqueued + claimed.length,
        startedAt: replay.startedAt ?? new Date(),
      })
      .where(eq(webhookReplays.id, replay.id));
    if (page.exhausted) return finish('completed');
    await enqueue(tx, REPLAY_PAGE, { replay_id: replay.id, step: next });
    return { outcome: 'sent', claimed };
  });
}
