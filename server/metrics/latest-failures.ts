import { sql } from 'drizzle-orm';
import type { Ctx, Environment, OperatorActor } from '../context';
import { ValidationError } from '../errors';
import { idFloor } from '../ids';

export interface FailedAttempt {
  attemptId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  url: string;
  partnerId: string;
  partnerName: string;
  environment: Environment;
  number: number;
  startedAt: Date;
  responseStatus: number | null;
  errorKind: string;
  errorMessage: string | null;
}

export const MAX_LATEST_FAILURES = 50;

/**
 * The newest failed attempts since `since`, newest first, each with its partner, subscription and event:
 * what the overview lists under "latest failures". Attempt ids are ULIDs made when the attempt is
 * recorded, so the scan walks the primary key backwards from now and stops at the window's floor
 * (the request timeout plus a minute before `since`) however many attempts the table holds.
 */
export async function latestFailures({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { since: Date; first: number };
}): Promise<FailedAttempt[]> {
  const { since, first } = input;
  if (!Number.isInteger(first) || first < 1 || first > MAX_LATEST_FAILURES) {
    throw new ValidationError([
      { param: 'first', code: 'parameter_invalid', message: `first must be between 1 and ${MAX_LATEST_FAILURES}.` },
    ]);
  }
  // webhook_attempts_failed_idx holds the failed attempts only, newest first: the walk reads failures, not the
  // successes between them (migration 0020).
  const floor = idFloor(new Date(since.getTime() - ctx.env.WEBHOOK_TIMEOUT_MS - 60_000));
  const rows = await ctx.read.execute<{
    attempt_id: string;
    delivery_id: string;
    event_id: string;
    event_type: string;
    subscription_id: string;
    url: string;
    partner_id: string;
    partner_name: string;
    environment: Environment;
    attempt: number;
    started_at: string | Date;
    response_status: number | null;
    error_kind: string;
    error_message: string | null;
  }>(sql`
    select a.id as attempt_id, d.id as delivery_id, d.event_id, d.event_type, s.id as subscription_id, s.url,
      p.id as partner_id, p.name as partner_name, s.environment, a.attempt, a.started_at, a.response_status,
      a.error_kind, a.error_message
    from webhook_attempts a
    join webhook_deliveries d on d.id = a.delivery_id
    join webhook_subscriptions s on s.id = d.subscription_id
    join partners p on p.id = s.partner_id
    where a.id >= ${floor} and a.started_at >= ${since.toISOString()}::timestamptz and a.error_kind is not null
    order by a.id desc limit ${first}`);
  return rows.map((r) => ({
    attemptId: r.attempt_id,
    deliveryId: r.delivery_id,
    eventId: r.event_id,
    eventType: r.event_type,
    subscriptionId: r.subscription_id,
    url: r.url,
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    environment: r.environment,
    number: r.attempt,
    startedAt: r.started_at instanceof Date ? r.started_at : new Date(r.started_at),
    responseStatus: r.response_status,
    errorKind: r.error_kind,
    errorMessage: r.error_message,
  }));
}
