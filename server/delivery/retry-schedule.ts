import type { Env } from '../config/env';
import type { Environment } from '../context';

/** Seconds between attempts: attempts at +0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/**
 * The wait before the attempt after `failedAttempt` (1-based), or undefined when there is none:
 * the schedule is exhausted, or in the sandbox the next attempt would fall beyond the sandbox
 * window (30 min). Each delay gets ±20 % jitter so a recovering receiver is not hit by a wall of
 * retries at once; a Retry-After from a 429/503 is a floor.
 */
export function nextRetryDelay(
  failedAttempt: number,
  environment: Environment,
  env: Pick<Env, 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_SANDBOX_RETRY_WINDOW_SECONDS'>,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | undefined {
  const schedule = env.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE;
  const base = schedule[failedAttempt - 1];
  if (base === undefined) return undefined;
  if (environment === 'sandbox') {
    const elapsed = schedule.slice(0, failedAttempt).reduce((a, b) => a + b, 0);
    if (elapsed > env.WEBHOOK_SANDBOX_RETRY_WINDOW_SECONDS) return undefined;
  }
  const jittered = base * (0.8 + 0.4 * random());
  return retryAfterSeconds === undefined ? jittered : Math.max(jittered, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS));
}

/** Retry-After as delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
