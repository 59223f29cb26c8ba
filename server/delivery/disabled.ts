import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';

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
 * Extends the subscription's failing streak with a failure at `failedAt`, and disables it when
 * {@link autoDisableReason} says so. Inside the failure's transaction: the row is locked, so a success
 * recorded meanwhile (which ends the streak) is seen before deciding.
 */
export async function recordFailingStreak(
  tx: Ctx,
  failure: { subscriptionId: string; failedAt: Date; gone: boolean },
): Promise<AutoDisableReason | undefined> {
  const [row] = await tx.db.execute<{ status: string; failing_since: string | null; now: string }>(sql`
    select status, failing_since, now() as now from webhook_subscriptions where id = ${failure.subscriptionId} for update`);
  if (!row) return undefined;
  const reason = autoDisableReason({
    gone: failure.gone,
    failingSince: row.failing_since === null ? null : new Date(row.failing_since),
    now: new Date(row.now),
    afterHours: tx.env.WEBHOOK_AUTO_DISABLE_AFTER_HOURS,
  });
  // A subscription disabled by someone keeps its own reason.
  const disable = reason !== undefined && row.status === 'enabled';
  await tx.db.execute(sql`
    update webhook_subscriptions set
      failing_since = coalesce(failing_since, ${failure.failedAt.toISOString()}::timestamptz)
      ${disable ? sql`, status = 'disabled', disabled_reason = ${reason}, updated_at = now()` : sql``}
    where id = ${failure.subscriptionId}`);
  return disable ? reason : undefined;
}
