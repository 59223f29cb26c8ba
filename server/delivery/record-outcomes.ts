import { and, eq } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { newId } from '../ids';
import { enqueue } from '../outbox/enqueue';
import { DELIVER, NOTICES } from '../outbox/queues';
import { noticeClocks, timedStage } from '../notices/stages';
import { recordFailingStreak } from './disabled';
import type { AttemptOutcome } from './send-attempt';
import type { PostOutcome } from './http-client';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule';
import { anyOfRaw } from '@/db/lists';
import { plannedEachTime } from '@/db/client';

/** `lost`: not recorded, because its claim was taken from this worker meanwhile (leases.ts); the taker records its own. */
export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'skipped' | 'lost';

export interface RecordResult {
  results: Map<string, AttemptResult>;
  /** Deliveries whose outcome could not be written (the database failed each time): their claims lapse and the sweeper returns them. */
  unrecorded: AttemptOutcome[];
}

type Success = AttemptOutcome & { outcome: Extract<PostOutcome, { kind: 'response' }> };

/**
 * Records finished attempts, several at once: every success in one statement (the common case),
 * every skip in one, each failure with its retry job in its own transaction. When a statement for
 * several fails, each delivery is recorded on its own, so one that cannot be written never keeps
 * its neighbours from being recorded.
 *
 * Only a claim `holder` still holds is recorded. One taken from it (it stalled past its claim and its
 * heartbeat, and another worker claimed the attempt again) is `lost`: the other worker records its own
 * attempt, so the delivery keeps one attempt per number and one success.
 */
export async function recordOutcomes(ctx: Ctx, holder: string, outcomes: AttemptOutcome[]): Promise<RecordResult> {
  const results = new Map<string, AttemptResult>();
  const unrecorded: AttemptOutcome[] = [];
  const successes = outcomes.filter(isSuccess);
  const skips = outcomes.filter((o) => !o.outcome);
  const failures = outcomes.filter((o) => o.outcome && !isSuccess(o));

  // `write` answers the deliveries it recorded: the others' claims were lost.
  const grouped = async <T extends AttemptOutcome>(
    items: T[],
    write: (items: T[]) => Promise<Set<string>>,
    result: (item: T) => AttemptResult,
  ) => {
    if (items.length === 0) return;
    const settle = (item: T, recorded: Set<string>) => results.set(item.claimed.id, recorded.has(item.claimed.id) ? result(item) : 'lost');
    try {
      const recorded = await write(items);
      for (const item of items) settle(item, recorded);
      return;
    } catch (error) {
      if (items.length === 1) return onFailure(ctx, items[0]!, error, unrecorded);
      ctx.log.warn({ deliveries: items.length, err: error }, 'recording a batch of webhook attempts failed; recording them one by one');
    }
    for (const item of items) {
      try {
        settle(item, await write([item]));
      } catch (error) {
        onFailure(ctx, item, error, unrecorded);
      }
    }
  };
  await grouped(
    successes,
    (items) => recordSuccesses(ctx, holder, items),
    () => 'succeeded',
  );
  await grouped(
    skips,
    (items) => recordSkips(ctx, holder, items),
    () => 'skipped',
  );
  for (const failure of failures) {
    try {
      results.set(failure.claimed.id, await recordFailure(ctx, holder, failure));
    } catch (error) {
      onFailure(ctx, failure, error, unrecorded);
    }
  }
  return { results, unrecorded };
}

function onFailure(ctx: Ctx, item: AttemptOutcome, error: unknown, unrecorded: AttemptOutcome[]): void {
  // The logger's serializer keeps the error's kind and message, never the statement's parameters.
  ctx.log.error(
    { delivery_id: item.claimed.id, attempt: item.claimed.attempt, err: error },
    'could not record a webhook attempt; its claim will lapse and the attempt is made again',
  );
  unrecorded.push(item);
}

function isSuccess(o: AttemptOutcome): o is Success {
  return o.outcome?.kind === 'response' && o.outcome.status >= 200 && o.outcome.status < 300;
}

/**
 * Successes in one statement (atomic without a transaction): the deliveries still held, their
 * attempts, and the end of a failing streak, written only where there is one (a 2xx ends it, whoever
 * records the attempt). Answers the deliveries recorded.
 */
async function recordSuccesses(ctx: Ctx, holder: string, successes: Success[]): Promise<Set<string>> {
  const rows = successes.map(({ claimed, startedAt, outcome }) => ({
    id: newId(),
    delivery_id: claimed.id,
    subscription_id: claimed.subscription_id,
    attempt: claimed.attempt,
    trigger: claimed.trigger,
    requested_by: claimed.requested_by ?? null,
    api_version: claimed.api_version,
    resolved_address: outcome.address ?? null,
    started_at: startedAt.toISOString(),
    duration_ms: outcome.durationMs,
    response_status: outcome.status,
    response_headers: outcome.headers,
    response_body: outcome.body,
  }));
  const recorded = await plannedEachTime(ctx.sql<{ id: string; ended_streak: Date | string | null }[]>`
    with done as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, delivery_id text, subscription_id text, attempt int,
        trigger text, requested_by text, api_version text, resolved_address text, started_at timestamptz, duration_ms int,
        response_status int, response_headers jsonb, response_body text)
    ), deliveries as (
      -- The ids again as a list: the planner cannot see into the jsonb and would scan the whole table.
      update webhook_deliveries d set status = 'succeeded', claimed_until = null, claimed_by = null,
        attempts = greatest(d.attempts, done.attempt), last_attempt_at = done.started_at, next_attempt_at = null, updated_at = now()
      from done where d.id = done.delivery_id and d.id = ${anyOfRaw(
        ctx.sql,
        rows.map((r) => r.delivery_id),
      )} and d.event_id = ${eventsOf(ctx, successes)} and d.status = 'pending' and d.claimed_by = ${holder}
      returning d.id
    ), attempts as (
      insert into webhook_attempts (id, delivery_id, attempt, trigger, requested_by, api_version, resolved_address, started_at,
        duration_ms, response_status, response_headers, response_body)
      select id, delivery_id, attempt, trigger, requested_by, api_version, resolved_address, started_at, duration_ms, response_status,
        response_headers, response_body from done where delivery_id in (select id from deliveries)
    ), streaks as (
      -- recovered_from keeps the ended streak's start (SET reads the row as it was) for its notices.
      update webhook_subscriptions set recovered_from = failing_since, recovered_at = now(), failing_since = null
      where id = ${anyOfRaw(ctx.sql, [...new Set(rows.map((r) => r.subscription_id))])} and failing_since is not null
      returning id, recovered_from
    )
    select id, null::timestamptz as ended_streak from deliveries
    union all select id, recovered_from from streaks`);
  await announceRecoveries(
    ctx,
    recorded.filter((r) => r.ended_streak !== null),
  );
  return new Set(recorded.filter((r) => r.ended_streak === null).map((r) => r.id));
}

/**
 * A streak old enough to have been announced has ended: the notices job tells whoever was told
 * (server/notices/). Not in a transaction, as the successes are not: should this enqueue be lost, the
 * job's minute finds the streak by its recovered_from.
 */
async function announceRecoveries(ctx: Ctx, ended: { id: string; ended_streak: Date | string | null }[]): Promise<void> {
  const clocks = noticeClocks(ctx.env);
  for (const { id, ended_streak } of ended) {
    if (timedStage(Date.now() - new Date(ended_streak!).getTime(), clocks) === undefined) continue;
    await enqueue(ctx, NOTICES, { subscription_id: id }).catch((err: unknown) =>
      ctx.log.warn({ subscription_id: id, err }, 'could not enqueue the recovery notice; the notices job finds it within a minute'),
    );
  }
}

/**
 * The batch's events, `= any(...)` beside its delivery ids: the partition key, so Postgres reads only the weeks
 * holding them, and an index condition for whichever index it picks. Without it, a plan made while the week's
 * partition held no pending delivery (its statistics) read the whole pending index (event_id) and filtered it by
 * the ids: 45-66 ms to record 66 deliveries in a burst, against 3-8 ms by the primary key, so the database's
 * CPU per delivery grew through each burst (bench 2026-11-26: 1,242, 984 and 925 deliveries/s).
 */
function eventsOf(ctx: Ctx, outcomes: { claimed: { event_id: string } }[]) {
  return anyOfRaw(ctx.sql, [...new Set(outcomes.map((o) => o.claimed.event_id))]);
}

/** Attempts not made because the subscription was disabled or deleted meanwhile: the delivery is skipped (a replay can send it). */
async function recordSkips(ctx: Ctx, holder: string, skips: AttemptOutcome[]): Promise<Set<string>> {
  const recorded = await plannedEachTime(ctx.sql<{ id: string }[]>`
    update webhook_deliveries set status = 'skipped', attempts = attempts - 1, claimed_until = null, claimed_by = null, updated_at = now()
    where id = ${anyOfRaw(
      ctx.sql,
      skips.map((s) => s.claimed.id),
    )} and event_id = ${eventsOf(ctx, skips)} and status = 'pending' and claimed_by = ${holder}
    returning id`);
  return new Set(recorded.map((r) => r.id));
}

async function recordFailure(ctx: Ctx, holder: string, { claimed, startedAt, outcome }: AttemptOutcome): Promise<AttemptResult> {
  const failed = outcome!;
  const gone = failed.kind === 'response' && failed.status === 410;
  const retryAfter =
    failed.kind === 'response' && (failed.status === 429 || failed.status === 503)
      ? parseRetryAfter(failed.headers['retry-after'])
      : undefined;
  const delay = gone ? undefined : nextRetryDelay(claimed.attempt, claimed.environment, ctx.env, retryAfter);
  const result: AttemptResult = delay === undefined ? 'failed' : 'retrying';

  return withTransaction(ctx, async (tx) => {
    const held = await tx.db
      .update(webhookDeliveries)
      .set({
        status: result === 'retrying' ? 'pending' : 'failed',
        claimedUntil: null,
        claimedBy: null,
        lastAttemptAt: startedAt,
        nextAttemptAt: delay === undefined ? null : new Date(Date.now() + delay * 1000),
        updatedAt: new Date(),
      })
      .where(and(eq(webhookDeliveries.id, claimed.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.claimedBy, holder)))
      .returning({ id: webhookDeliveries.id });
    if (held.length === 0) return 'lost';
    await tx.db.insert(webhookAttempts).values({
      id: newId(),
      deliveryId: claimed.id,
      attempt: claimed.attempt,
      trigger: claimed.trigger,
      requestedBy: claimed.requested_by ?? null,
      apiVersion: claimed.api_version,
      resolvedAddress: failed.address ?? null,
      startedAt,
      durationMs: failed.durationMs,
      responseStatus: failed.kind === 'response' ? failed.status : null,
      responseHeaders: failed.kind === 'response' ? failed.headers : null,
      responseBody: failed.kind === 'response' ? failed.body : null,
      errorKind: failed.kind === 'response' ? 'http_status' : failed.errorKind,
      errorMessage: failed.kind === 'response' ? `HTTP ${failed.status}` : failed.message,
    });
    if (delay !== undefined) {
      await enqueue(
        tx,
        DELIVER,
        { delivery_id: claimed.id, event_id: claimed.event_id, subscription_id: claimed.subscription_id, attempt: claimed.attempt + 1 },
        { startAfterSeconds: Math.max(1, Math.round(delay)) },
      );
    }
    await recordFailingStreak(tx, {
      subscriptionId: claimed.subscription_id,
      failedAt: startedAt,
      gone,
      errorKind: failed.kind === 'response' ? 'http_status' : failed.errorKind,
      responseStatus: failed.kind === 'response' ? failed.status : null,
    });
    return result;
  });
}
