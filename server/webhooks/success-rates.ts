import type { Ctx } from '../context';
import { countsSince, windowStart } from '../history/attempt-minutes';

export interface SuccessRate {
  /** Attempts started in the window (scheduled, manual and replayed alike). */
  attempts: number;
  succeeded: number;
  /** succeeded / attempts; null without attempts. */
  ratio: number | null;
  since: Date;
}

/**
 * How the attempts of each subscription fared over the last `hours`, for several subscriptions in
 * one query: closed minutes from the rollup, the rest from webhook_attempts (server/history/attempt-minutes.ts).
 * Reading the attempts of the window instead took 2.2 s for a page of partners at 10,000,000 attempts (issue 29).
 */
export async function webhookSuccessRates({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { subscriptionIds: readonly string[]; hours: number };
}): Promise<Map<string, SuccessRate>> {
  const since = windowStart(input.hours * 3600_000);
  const counts = await countsSince(
    ctx,
    [...new Set(input.subscriptionIds)].map((subscriptionId) => ({ subscriptionId, since })),
  );
  const rates = new Map<string, SuccessRate>(input.subscriptionIds.map((id) => [id, { attempts: 0, succeeded: 0, ratio: null, since }]));
  for (const [id, c] of counts) rates.set(id, { attempts: c.attempts, succeeded: c.succeeded, ratio: c.succeeded / c.attempts, since });
  return rates;
}
