import { and, eq, isNull, sql } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { NotFoundError, ValidationError } from '../errors';
import { summariseSubscription, type SubscriptionSummary } from '../webhooks/subscription-summary';
import type { StatusClass } from '../webhooks/search-deliveries';
import { attemptMinutes, readCounted, ROLLUP_MARK, windowStart } from '../history/attempt-minutes';
import { histogramPercentile } from '../history/duration-histogram';
import { BACKLOG_COUNT_LIMIT, DUE_BY } from './overview';

export interface HealthBucket {
  start: Date;
  attempts: number;
  succeeded: number;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
}

export interface StatusClassCount {
  statusClass: StatusClass;
  attempts: number;
}

export interface SubscriptionHealthReport {
  subscription: SubscriptionSummary;
  windowHours: number;
  since: Date;
  bucketMinutes: number;
  /** Buckets with attempts, oldest first. */
  buckets: HealthBucket[];
  attempts: number;
  succeeded: number;
  successRate: number | null;
  statusClasses: StatusClassCount[];
  /** Failures recorded in the open streak (as the overview and the failure notices count them); null when not failing. */
  consecutiveFailures: number | null;
  pendingDeliveries: number;
  dueDeliveries: number;
  /** Where the two counts above stop: a count equal to it means at least that many. */
  backlogCountLimit: number;
  oldestPendingAt: Date | null;
}

// In the order the page lists them (the order of the old query's `order by` over their names).
const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const satisfies readonly StatusClass[];

export const MAX_HEALTH_WINDOW_HOURS = 7 * 24;
// About 48 points whatever the window: enough for a readable line, few enough to read at a glance.
const BUCKETS_PER_WINDOW = 48;

// From this window on, buckets are whole hours read from the rollup's hours: a 7-day window read 10,080 minute rows and
// unnested their histograms (1,000,000 attempts: the statement 70 ms); shorter ones keep buckets of a few minutes.
const HOUR_GRAIN_FROM_HOURS = 48;

const date = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/**
 * A window's buckets: about BUCKETS_PER_WINDOW of them, starting where the rollup's rows can start. Below
 * HOUR_GRAIN_FROM_HOURS they are whole minutes from the minute the window starts in (the rollup counts whole minutes);
 * from it on, whole hours from the hour the window starts in (168 h: 240 minutes, 42 or 43 points), read at hour grain.
 */
function bucketsOf(since: Date, windowHours: number): { bucketMinutes: number; origin: Date; grain: 'minute' | 'hour' } {
  if (windowHours >= HOUR_GRAIN_FROM_HOURS) {
    return {
      bucketMinutes: Math.ceil(windowHours / BUCKETS_PER_WINDOW) * 60,
      origin: new Date(Math.floor(since.getTime() / 3600_000) * 3600_000),
      grain: 'hour',
    };
  }
  return {
    bucketMinutes: Math.ceil((windowHours * 60) / BUCKETS_PER_WINDOW),
    origin: new Date(Math.floor(since.getTime() / 60_000) * 60_000),
    grain: 'minute',
  };
}

/**
 * One subscription's health over the last `windowHours`: attempts, success and latency (p50/p95) per
 * bucket, the response status classes, the failure streak and the backlog of its pending deliveries.
 * Attempts are those started in the window, counted as webhookSuccessRates counts them, so the partner
 * page's 24 h rate and this page's agree.
 */
export async function subscriptionHealth({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { id: string; windowHours: number };
}): Promise<SubscriptionHealthReport> {
  const { id, windowHours } = input;
  if (!Number.isInteger(windowHours) || windowHours < 1 || windowHours > MAX_HEALTH_WINDOW_HOURS) {
    throw new ValidationError([
      { param: 'windowHours', code: 'parameter_invalid', message: `windowHours must be between 1 and ${MAX_HEALTH_WINDOW_HOURS}.` },
    ]);
  }
  // The subscription itself (status, streak) on the primary, as the operator just set it; its history through ctx.read.
  const [row] = await ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), isNull(webhookSubscriptions.deletedAt)));
  if (!row) throw new NotFoundError('webhook subscription', id);

  const since = windowStart(windowHours * 3600_000);
  const { bucketMinutes, origin, grain } = bucketsOf(since, windowHours);
  // One statement, so the buckets, their durations and the status classes are counted from one snapshot. Closed
  // minutes come from the rollup, the rest from webhook_attempts (server/history/attempt-minutes.ts): flat in the
  // history's size, where reading the week's attempts took ~5 s at 10,000,000 attempts (issue 29).
  const counted = await readCounted<{
    buckets: { start: string; attempts: number; succeeded: number }[];
    histogram: { start: string; bins: number[]; counts: number[] }[];
    classes: Record<'none' | '2xx' | '3xx' | '4xx' | '5xx', number | null>;
  }>(
    ctx,
    (seen) => sql`
    with minutes as materialized (select * from ${attemptMinutes([{ subscriptionId: id, since }], seen, { grain })} r),
    binned as (
      select date_bin(${`${bucketMinutes} minutes`}::interval, minute, ${origin.toISOString()}::timestamptz) as start, * from minutes
    )
    select ${ROLLUP_MARK} as mark,
      (select coalesce(json_agg(b order by b.start), '[]') from (
        select start, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded from binned group by start) b) as buckets,
      (select coalesce(json_agg(h), '[]') from (
        select start, array_agg(bin order by bin) as bins, array_agg(n order by bin) as counts from (
          select start, bin, sum(n)::int as n from (
            select start, unnest(duration_bins) as bin, unnest(duration_counts) as n from binned) u
          group by start, bin) per_bin
        group by start) h) as histogram,
      (select json_build_object('none', sum(status_none), '2xx', sum(status_2xx), '3xx', sum(status_3xx), '4xx', sum(status_4xx),
        '5xx', sum(status_5xx)) from minutes) as classes`,
  );
  // A bucket's histogram as two arrays, unnested in the select list: a row per (bucket, bin) as JSON and the unnest as
  // a function scan in FROM (a tuplestore per row) took the 7-day statement from 10.3 to 14.7 ms (p50, interleaved,
  // 1,000,000 attempts, load ~4).
  const histograms = new Map(
    counted.histogram.map((h) => [date(h.start).getTime(), h.bins.map((bin, i) => ({ bin, count: h.counts[i]! }))]),
  );
  const buckets = counted.buckets.map((b) => {
    const histogram = histograms.get(date(b.start).getTime()) ?? [];
    const p50 = histogramPercentile(histogram, 0.5);
    const p95 = histogramPercentile(histogram, 0.95);
    return {
      start: date(b.start),
      attempts: b.attempts,
      succeeded: b.succeeded,
      p50DurationMs: p50 === null ? null : Math.round(p50),
      p95DurationMs: p95 === null ? null : Math.round(p95),
    };
  });
  const statusClasses = STATUS_CLASSES.filter((c) => (counted.classes[c] ?? 0) > 0).map((c) => ({
    statusClass: c,
    attempts: counted.classes[c]!,
  }));

  // The count the engine keeps on the row, as the overview reads it (server/metrics/overview.ts failingSubscriptions).
  const consecutiveFailures = row.failingSince ? row.streakFailures : null;

  // Through webhook_deliveries_subscription_pending_idx (this subscription's pending deliveries, oldest first): the
  // counts stop at BACKLOG_COUNT_LIMIT as the overview's do, and the oldest is the index's first entry. Counting
  // every pending delivery of a subscription whose receiver is down grew with its backlog.
  const [backlog] = await ctx.read.execute<{ pending: number; due: number; oldest: string | null }>(sql`
    select
      (select count(*) from (select 1 from webhook_deliveries where subscription_id = ${id} and status = 'pending'
        limit ${BACKLOG_COUNT_LIMIT}) p)::int as pending,
      (select count(*) from (select 1 from webhook_deliveries where subscription_id = ${id} and status = 'pending'
        and ${DUE_BY} <= now() limit ${BACKLOG_COUNT_LIMIT}) d)::int as due,
      (select min(created_at) from webhook_deliveries where subscription_id = ${id} and status = 'pending') as oldest`);

  const attempts = buckets.reduce((n, b) => n + b.attempts, 0);
  const succeeded = buckets.reduce((n, b) => n + b.succeeded, 0);
  return {
    subscription: summariseSubscription(row),
    windowHours,
    since,
    bucketMinutes,
    buckets,
    attempts,
    succeeded,
    successRate: attempts === 0 ? null : succeeded / attempts,
    statusClasses,
    consecutiveFailures,
    pendingDeliveries: backlog?.pending ?? 0,
    dueDeliveries: backlog?.due ?? 0,
    backlogCountLimit: BACKLOG_COUNT_LIMIT,
    oldestPendingAt: backlog?.oldest ? date(backlog.oldest) : null,
  };
}
