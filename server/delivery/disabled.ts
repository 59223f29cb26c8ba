import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';
import { timedStage, noticeClocks } from '../notices/stages';
import { enqueue } from '../outbox/enqueue';
import { NOTICES } from '../outbox/queues';

/**
 * Disabling a subscription, in one place: when it happens and what it means.
 *
 * When: an operator or the partner sets it (server/webhooks/set-status.ts, update.ts, delete.ts, which
 * also disables), or a recorded failure meets {@link autoDisableReason}: the receiver answered 410
 * Gone (`gone`), or it has failed with no success since for WEBHOOK_AUTO_DISABLE_AFTER_HOURS
 * (`too_many_failures`, 5 days by default).
 *
 * What it means, while {@link receivesDeliveries} is false:
 * - fan-out records new events' deliveries to it as `skipped` and sends nothing (fan-out.ts);
 * - an attempt claimed before it was disabled is not sent: its delivery becomes `skipped`, its attempt
 *   count given back (send-attempt.ts, record-outcomes.ts);
 * - redelivering an event to it, or starting a replay to it, is refused with 409
 *   `subscription_disabled`; to all subscriptions, it is left out (server/events/redeliver.ts,
 *   server/replays/create.ts);
 * - a replay already running to it ends `failed` at its next page (server/replays/run-page.ts).
 * Enabling it again clears the reason and the failing streak; what was skipped meanwhile is sent only
 * by a replay (`only: missing`).
 */
export function receivesDeliveries(subscription: { status: string; deletedAt?: Date | string | null }): boolean {
  return subscription.status === 'enabled' && !subscription.deletedAt;
}

export type AutoDisableReason = 'gone' | 'too_many_failures';

/** Why a failure disables its subscription, or undefined when it does not. */
export function autoDisableReason(failure: {
  gone: boolean;
  /** The start of the failing streak this failure extends (null: it starts one). */
  failingSince: Date | null;
  now: Date;
  afterHours: number;
}): AutoDisableReason | undefined {
  if (failure.gone) return 'gone';
  if (failure.failingSince && failure.now.getTime() - failure.failingSince.getTime() > failure.afterHours * 3_600_000) {
    return 'too_many_failures';
  }
  return undefined;
}

/**
 * Extends the subscription's failing streak with a failure at `failedAt` (its count and last error,
 * which the failure notices read), and disables it when {@link autoDisableReason} says so. Inside the
 * failure's transaction: the row is locked, so a success recorded meanwhile (which ends the streak) is
 * seen before deciding. When this failure disables the subscription or takes its streak past a notice's
 * time (server/notices/stages.ts), the notices job is enqueued in the same transaction, so the partner
 * hears of it now rather than at the job's next minute.
 */
export async function recordFailingStreak(
  tx: Ctx,
  failure: { subscriptionId: string; failedAt: Date; gone: boolean; errorKind: string; responseStatus: number | null },
): Promise<AutoDisableReason | undefined> {
  const [row] = await tx.db.execute<{ status: string; failing_since: string | null; last_failure_at: string | null; now: string }>(sql`
    select status, failing_since, last_failure_at, now() as now from webhook_subscriptions where id = ${failure.subscriptionId} for update`);
  if (!row) return undefined;
  const now = new Date(row.now);
  const failingSince = row.failing_since === null ? null : new Date(row.failing_since);
  const reason = autoDisableReason({ gone: failure.gone, failingSince, now, afterHours: tx.env.WEBHOOK_AUTO_DISABLE_AFTER_HOURS });
  // A subscription disabled by someone keeps its own reason.
  const disable = reason !== undefined && row.status === 'enabled';
  // Measured on the attempts' own clock, the one failing_since is on.
  const since = (failingSince ?? failure.failedAt).getTime();
  const last = failingSince && row.last_failure_at ? new Date(row.last_failure_at).getTime() : undefined;
  // Attempts in flight together may be recorded out of order: the last failure is the latest one.
  const latest = last === undefined || last <= failure.failedAt.getTime();
  await tx.db.execute(sql`
    update webhook_subscriptions set
      failing_since = coalesce(failing_since, ${failure.failedAt.toISOString()}::timestamptz),
      streak_failures = case when failing_since is null then 1 else streak_failures + 1 end
      ${
        latest
          ? sql`, last_failure_at = ${failure.failedAt.toISOString()}::timestamptz, last_error_kind = ${failure.errorKind},
            last_response_status = ${failure.responseStatus}`
          : sql``
      }
      ${disable ? sql`, status = 'disabled', disabled_reason = ${reason}, updated_at = now()` : sql``}
    where id = ${failure.subscriptionId}`);
  const clocks = noticeClocks(tx.env);
  const reachedBefore = last === undefined ? undefined : timedStage(last - since, clocks);
  const reachedNow = timedStage(Math.max(failure.failedAt.getTime(), last ?? 0) - since, clocks);
  if (disable || reachedNow !== reachedBefore) await enqueue(tx, NOTICES, { subscription_id: failure.subscriptionId });
  return disable ? reason : undefined;
}
