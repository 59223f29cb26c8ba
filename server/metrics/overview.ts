import { sql } from 'drizzle-orm';
import type { Ctx, Environment, OperatorActor } from '../context';
import { ValidationError } from '../errors';
import { outcomesPerMinute, windowStart } from '../history/attempt-minutes';

export interface MinuteCount {
  minute: Date;
  succeeded: number;
  failed: number;
}

export interface SubscriptionHealth {
  id: string;
  partnerId: string;
  environment: Environment;
  url: string;
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  failingSince: Date | null;
  /** Failures recorded in the open streak (streak_failures, the count the failure notices give); null when not failing. */
  consecutiveFailures: number | null;
}

export interface Overview {
  windowMinutes: number;
  since: Date;
  perMinute: MinuteCount[];
  attempts: number;
  /** Succeeded attempts / attempts in the window; null when there were none. */
  successRate: number | null;
  /** Up to backlogCountLimit. */
  pendingDeliveries: number;
  /** Pending and due now: waiting for a worker, not for a retry's time. Up to backlogCountLimit. */
  dueDeliveries: number;
  backlogCountLimit: number;
  /** How long the oldest due delivery has been waiting; null when none is. */
  oldestWaitingSeconds: number | null;
  failingSubscriptions: SubscriptionHealth[];
  disabledSubscriptions: SubscriptionHealth[];
}

const MAX_WINDOW_MINUTES = 24 * 60;
/**
 * The backlog's counts stop here: a count equal to it means at least that many. With 100,000 pending on Debian's
 * PostgreSQL 15 (load 7-9) the overview's backlog statement took 200-345 ms reading them all; counting up to 10,000
 * through the index by due time, 42-81 ms; up to 1,000, from the index alone (its key holds both columns), 10 ms.
 */
export const BACKLOG_COUNT_LIMIT = 1_000;
/** The moment a pending delivery is due: its retry's time, else (a first attempt, or one in flight) its creation. */
export const DUE_BY = sql.raw('coalesce(next_attempt_at, created_at)');
const LIST_LIMIT = 100;

const date = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/**
 * The console's overview: attempts per minute by outcome over the window, the success rate, the
 * delivery backlog and its oldest waiting delivery, and the subscriptions failing or disabled.
 */
export async function overview({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { windowMinutes: number } }): Promise<Overview> {
  const { windowMinutes } = input;
  if (!Number.isInteger(windowMinutes) || windowMinutes < 1 || windowMinutes > MAX_WINDOW_MINUTES) {
    throw new ValidationError([
      { param: 'windowMinutes', code: 'parameter_invalid', message: `windowMinutes must be between 1 and ${MAX_WINDOW_MINUTES}.` },
    ]);
  }
  const since = windowStart(windowMinutes * 60_000);
  // Closed minutes from the rollup, the rest from webhook_attempts (server/history/attempt-minutes.ts): flat in the
  // history's size (it read every attempt of the day: p50 691 ms at 10,000,000 attempts, issue 29).
  const perMinute = await outcomesPerMinute(ctx, since);
  // Through webhook_deliveries_pending_idx (pending rows only, keyed by the moment each is due: its retry's time, else
  // its creation, so due means due by then); due includes attempts in flight. The counts stop at BACKLOG_COUNT_LIMIT,
  // and the oldest due is the index's first entry. Each count is ordered by the index's key: with a bare `limit` a
  // planner that saw many pending rows expected its 1,000 early in a sequential scan of the weeks (22,121 rows read
  // for 2,001 in test/webhooks/console-reads.test.ts).
  const [queue] = await ctx.read.execute<{ pending: number; due: number; oldest: number | null }>(sql`
    select
      (select count(*) from (select 1 from webhook_deliveries where status = 'pending' order by ${DUE_BY}
        limit ${BACKLOG_COUNT_LIMIT}) p)::int as pending,
      (select count(*) from (select 1 from webhook_deliveries where status = 'pending' and ${DUE_BY} <= now() order by ${DUE_BY}
        limit ${BACKLOG_COUNT_LIMIT}) d)::int as due,
      (select extract(epoch from now() - min(${DUE_BY})) from webhook_deliveries
        where status = 'pending' and ${DUE_BY} <= now())::float8 as oldest`);
  const failing = await failingSubscriptions(ctx);
  const disabled = await ctx.read.execute<SubscriptionRowRaw>(sql`
    select s.id, s.partner_id, s.environment, s.url, s.status, s.disabled_reason, s.failing_since, null::int as failures
    from webhook_subscriptions s where s.deleted_at is null and s.status = 'disabled'
    order by s.updated_at desc limit ${LIST_LIMIT}`);
  const succeeded = perMinute.reduce((n, m) => n + m.succeeded, 0);
  const attempts = perMinute.reduce((n, m) => n + m.succeeded + m.failed, 0);
  return {
    windowMinutes,
    since,
    perMinute: perMinute.map((m) => ({ minute: date(m.minute), succeeded: m.succeeded, failed: m.failed })),
    attempts,
    successRate: attempts === 0 ? null : succeeded / attempts,
    pendingDeliveries: queue?.pending ?? 0,
    dueDeliveries: queue?.due ?? 0,
    backlogCountLimit: BACKLOG_COUNT_LIMIT,
    oldestWaitingSeconds: queue?.oldest === null || queue?.oldest === undefined ? null : Math.max(0, Math.round(queue.oldest)),
    failingSubscriptions: failing,
    disabledSubscriptions: disabled.map(health),
  };
}

type SubscriptionRowRaw = {
  id: string;
  partner_id: string;
  environment: Environment;
  url: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: string | Date | null;
  failures: number | null;
};

function health(row: SubscriptionRowRaw): SubscriptionHealth {
  return {
    id: row.id,
    partnerId: row.partner_id,
    environment: row.environment,
    url: row.url,
    status: row.status,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since ? date(row.failing_since) : null,
    consecutiveFailures: row.failures,
  };
}

/**
 * Enabled subscriptions whose attempts fail, longest failing first, each with its streak's failures: the count the
 * engine keeps on the row where it records each failure (server/delivery/disabled.ts recordFailingStreak). Counting
 * the attempts since failing_since instead read the streak's first minute from webhook_attempts for every
 * subscription (attempts carry none), and each attempt's delivery in every week: 1,160 ms when a streak began in the
 * minute a replay made 46,632 attempts (10,000,000 attempts seeded, issue 29).
 */
async function failingSubscriptions(ctx: Ctx): Promise<SubscriptionHealth[]> {
  const rows = await ctx.read.execute<SubscriptionRowRaw>(sql`
    select s.id, s.partner_id, s.environment, s.url, s.status, s.disabled_reason, s.failing_since, s.streak_failures as failures
    from webhook_subscriptions s where s.deleted_at is null and s.status = 'enabled' and s.failing_since is not null
    order by s.failing_since limit ${LIST_LIMIT}`);
  return rows.map(health);
}
