import { purgeUnconfirmedAccessRequests } from '@/server/access/purge';
import { makeWeeksAhead } from '@/server/history/partitions';
import { retireHistory } from '@/server/history/retain';
import { retireAttemptMinutes, rollUpAttempts } from '@/server/history/rollup';
import { purgeExpiredIdempotencyKeys } from '@/server/idempotency/store';
import { purgeOldNotices } from '@/server/notices/purge';
import { PURGE_EXPIRED, ROLLUP_ATTEMPTS } from '@/server/outbox/queues';
import { purgeOldFailedRequests } from '@/server/request-failures/purge';
import { purgeOldSessions } from '@/server/sessions/purge';
import { defineJob, jobContext } from './definition';

export const purgeExpiredJob = defineJob({
  queue: PURGE_EXPIRED,
  everyMinutes: 15,
  settings: { policy: 'singleton', retryLimit: 2, expireInSeconds: 40 },
  async handle(_data, deps) {
    const keys = await purgeExpiredIdempotencyKeys(deps.db);
    const ctx = jobContext(deps, PURGE_EXPIRED.name);
    // Weeks first: a week made ahead matters more than one dropped on time.
    const weeksMade = await makeWeeksAhead(ctx);
    const history = await retireHistory({ ctx });
    // The rollup's minutes leave with the weeks of attempts they counted.
    const attemptMinutes = await retireAttemptMinutes({ ctx });
    const { attempts, sessions } = await purgeOldSessions({ ctx });
    const accessRequests = await purgeUnconfirmedAccessRequests({ ctx });
    const failedRequests = await purgeOldFailedRequests({ ctx });
    const notices = await purgeOldNotices({ ctx });
    deps.log.info(
      {
        idempotency_keys: keys,
        history_weeks_made: weeksMade,
        history_dropped: history.dropped,
        history_held_by: history.heldBy,
        history_busy: history.busy,
        history_default_rows: history.defaultRows,
        attempt_minutes: attemptMinutes,
        sign_in_attempts: attempts,
        sessions,
        unconfirmed_access_requests: accessRequests,
        failed_requests: failedRequests,
        notices,
      },
      'purged expired rows',
    );
  },
});

// Stops at the first chunk past this: a catch-up over a long history (a database that had no rollup yet) goes on at the
// next minute's run instead of outliving the job's expiry.
const ROLLUP_BUDGET_MS = 25_000;

// The console's aggregates read closed minutes from the rollup and the rest from webhook_attempts: every minute keeps
// that rest to about two minutes of attempts. Any number of workers may run it at once: a pass waits for another's and
// then counts only what is left (the watermark row's lock), so nothing is counted twice.
export const rollupAttemptsJob = defineJob({
  queue: ROLLUP_ATTEMPTS,
  everyMinutes: 1,
  settings: { policy: 'singleton', retryLimit: 2, expireInSeconds: 40 },
  async handle(_data, deps) {
    const pass = await rollUpAttempts({ ctx: jobContext(deps, ROLLUP_ATTEMPTS.name), input: { budgetMs: ROLLUP_BUDGET_MS } });
    if (!pass.caughtUp)
      deps.log.info({ attempts: pass.attempts, chunks: pass.chunks, watermark: pass.watermark }, 'attempts rollup catching up');
  },
});
