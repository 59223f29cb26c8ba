import { and, eq, isNull, sql } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { NotFoundError, ValidationError } from '../errors';
import { summariseSubscription, type SubscriptionSummary } from '../webhooks/subscription-summary';
import type { StatusClass } from '../webhooks/search-deliveries';
import { RETRY_HORIZON_MS } from './overview';
import { attemptIdFloor, idFloor } from '../ids';

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
  /** Attempts failed since failingSince; null when not failing. */
  consecutiveFailures: number | null;
  pendingDeliveries: number;
  dueDeliveries: number;
  oldestPendingAt: Date | null;
}

export const MAX_HEALTH_WINDOW_HOURS = 7 * 24;
// About 48 points whatever the window: enough for a readable line, few enough to read at a glance.
const BUCKETS_PER_WINDOW = 48;

const date = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/**
 * One subscription's health over the last `windowHours`: attempts, success and latency (p50/p95) per
 * bucket, the response status classes, the failure streak and the backlog of its pending deliveries.
 * Attempts are found as webhookSuccessRates finds them (deliveries last tried in the window), so the
 * partner page's 24 h rate and this page's agree.
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

  const since = new Date(Date.now() - windowHours * 3600_000);
  const bucketMinutes = Math.ceil((windowHours * 60) / BUCKETS_PER_WINDOW);
  const sinceIso = since.toISOString();
  // An attempt's id is made when it is recorded, after it started: the id floor (a minute early, for clocks) prunes the
  // attempt partitions older than the window, which a condition on started_at alone cannot (a 7-day window at
  // 10,000,000 attempts read all five weeks' partitions, 5.4 s, issue 29).
  const inWindow = sql`d.subscription_id = ${id} and d.last_attempt_at >= ${sinceIso}::timestamptz and a.started_at >= ${sinceIso}::timestamptz
    and a.id >= ${attemptIdFloor(since)}`;

  const buckets = await ctx.read.execute<{
    start: string;
    attempts: number;
    succeeded: number;
    p50: number | null;
    p95: number | null;
  }>(sql`
    select date_bin(${`${bucketMinutes} minutes`}::interval, a.started_at, ${sinceIso}::timestamptz) as start,
      count(*)::int as attempts,
      count(*) filter (where a.error_kind is null)::int as succeeded,
      percentile_cont(0.5) within group (order by a.duration_ms)::float8 as p50,
      percentile_cont(0.95) within group (order by a.duration_ms)::float8 as p95
    from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
    where ${inWindow}
    group by 1 order by 1`);

  const classes = await ctx.read.execute<{ status_class: StatusClass; attempts: number }>(sql`
    select case when a.response_status is null then 'none'
        when a.response_status < 300 then '2xx' when a.response_status < 400 then '3xx'
        when a.response_status < 500 then '4xx' else '5xx' end as status_class,
      count(*)::int as attempts
    from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
    where ${inWindow}
    group by 1 order by 1`);

  // Counted as the overview counts a failing endpoint's streak (deliveries made within the retry horizon).
  let consecutiveFailures: number | null = null;
  if (row.failingSince) {
    const floor = idFloor(new Date(row.failingSince.getTime() - RETRY_HORIZON_MS));
    const [streak] = await ctx.read.execute<{ n: number }>(sql`
      select count(*)::int as n from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
      where d.subscription_id = ${id} and d.id >= ${floor} and a.started_at >= ${row.failingSince.toISOString()}::timestamptz
        and a.id >= ${attemptIdFloor(row.failingSince)}`);
    consecutiveFailures = streak?.n ?? 0;
  }

  // The subscription index narrows to its deliveries; pending ones are few next to the rest.
  const [backlog] = await ctx.read.execute<{ pending: number; due: number; oldest: string | null }>(sql`
    select count(*)::int as pending,
      count(*) filter (where next_attempt_at is null or next_attempt_at <= now())::int as due,
      min(created_at) as oldest
    from webhook_deliveries where subscription_id = ${id} and status = 'pending'`);

  const attempts = buckets.reduce((n, b) => n + b.attempts, 0);
  const succeeded = buckets.reduce((n, b) => n + b.succeeded, 0);
  return {
    subscription: summariseSubscription(row),
    windowHours,
    since,
    bucketMinutes,
    buckets: buckets.map((b) => ({
      start: date(b.start),
      attempts: b.attempts,
      succeeded: b.succeeded,
      p50DurationMs: b.p50 === null ? null : Math.round(b.p50),
      p95DurationMs: b.p95 === null ? null : Math.round(b.p95),
    })),
    attempts,
    succeeded,
    successRate: attempts === 0 ? null : succeeded / attempts,
    statusClasses: classes.map((c) => ({ statusClass: c.status_class, attempts: c.attempts })),
    consecutiveFailures,
    pendingDeliveries: backlog?.pending ?? 0,
    dueDeliveries: backlog?.due ?? 0,
    oldestPendingAt: backlog?.oldest ? date(backlog.oldest) : null,
  };
}
