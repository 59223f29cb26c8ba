import { sql } from 'drizzle-orm';
import type { Ctx, Environment, OperatorActor } from '../context';
import { ValidationError } from '../errors';
import { idFloor } from '../ids';

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
  /** Attempts failed since failingSince (every one has, or it would have been reset); null when not failing. */
  consecutiveFailures: number | null;
}

export interface Overview {
  windowMinutes: number;
  since: Date;
  perMinute: MinuteCount[];
  attempts: number;
  /** Succeeded attempts / attempts in the window; null when there were none. */
  successRate: number | null;
  pendingDeliveries: number;
  /** Pending and due now: waiting for a worker, not for a retry's time. */
  dueDeliveries: number;
  /** How long the oldest due delivery has been waiting; null when none is. */
  oldestWaitingSeconds: number | null;
  failingSubscriptions: SubscriptionHealth[];
  disabledSubscriptions: SubscriptionHealth[];
}

const MAX_WINDOW_MINUTES = 24 * 60;
const LIST_LIMIT = 100;
// A delivery's scheduled retries end within about 33 h of its creation (the schedule's sum plus
// jitter), so attempts since a subscription started failing belong to deliveries made at most this
// long before; reading only those keeps the count on the subscription index's recent end.
export const RETRY_HORIZON_MS = 2 * 86_400_000;

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
  const since = new Date(Date.now() - windowMinutes * 60_000);
  // Attempt ids are made when the attempt is recorded, after it started by its duration (at most the
  // request timeout) and the wait for the writer: that plus a minute's slack keeps the window's attempts in the id range.
  const perMinute = await ctx.read.execute<{ minute: string; succeeded: number; failed: number }>(sql`
    select date_trunc('minute', started_at) as minute,
      count(*) filter (where error_kind is null)::int as succeeded,
      count(*) filter (where error_kind is not null)::int as failed
    from webhook_attempts
    where id >= ${idFloor(new Date(since.getTime() - ctx.env.WEBHOOK_TIMEOUT_MS - 60_000))} and started_at >= ${since.toISOString()}::timestamptz
    group by 1 order by 1`);
  // The pending deliveries through webhook_deliveries_pending_idx (pending rows only, in every week), not a read
  // of the table. Due includes attempts in flight: a first attempt has no next_attempt_at.
  const [queue] = await ctx.read.execute<{ pending: number; due: number; oldest: number | null }>(sql`
    select count(*)::int as pending,
      count(*) filter (where next_attempt_at is null or next_attempt_at <= now())::int as due,
      extract(epoch from now() - min(coalesce(next_attempt_at, created_at))
        filter (where next_attempt_at is null or next_attempt_at <= now()))::float8 as oldest
    from webhook_deliveries where status = 'pending'`);
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

/** Enabled subscriptions whose attempts fail, longest failing first, each with its failures counted. */
async function failingSubscriptions(ctx: Ctx): Promise<SubscriptionHealth[]> {
  const rows = await ctx.read.execute<SubscriptionRowRaw>(sql`
    select s.id, s.partner_id, s.environment, s.url, s.status, s.disabled_reason, s.failing_since, null::int as failures
    from webhook_subscriptions s where s.deleted_at is null and s.status = 'enabled' and s.failing_since is not null
    order by s.failing_since limit ${LIST_LIMIT}`);
  if (rows.length === 0) return [];
  const scopes = rows.map((r) => {
    const since = date(r.failing_since!);
    return { id: r.id, floor: idFloor(new Date(since.getTime() - RETRY_HORIZON_MS)), since: since.toISOString() };
  });
  const counts = await ctx.read.execute<{ id: string; failures: number }>(sql`
    select x.id, (select count(*)::int from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
        where d.subscription_id = x.id and d.id >= x.floor and a.started_at >= x.since) as failures
    from jsonb_to_recordset(${JSON.stringify(scopes)}::jsonb) as x(id text, floor text, since timestamptz)`);
  const failures = new Map(counts.map((c) => [c.id, c.failures]));
  return rows.map((r) => health({ ...r, failures: failures.get(r.id) ?? 0 }));
}
