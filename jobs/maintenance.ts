import { purgeUnconfirmedAccessRequests } from '@/server/access/purge';
import { makeWeeksAhead } from '@/server/history/partitions';
import { retireHistory } from '@/server/history/retain';
import { purgeExpiredIdempotencyKeys } from '@/server/idempotency/store';
import { purgeOldNotices } from '@/server/notices/purge';
import { PURGE_EXPIRED } from '@/server/outbox/queues';
import { purgeOldFailedRequests } from '@/server/request-failures/purge';
import { purgeOldSessions } from '@/server/sessions/purge';
import { defineJob, jobContext } from './definition';

export const purgeExpiredJob = defineJob({
  queue: PURGE_EXPIRED,
  schedule: '*/15 * * * *',
  settings: { policy: 'singleton', retryLimit: 2, expireInSeconds: 40 },
  async handle(_data, deps) {
    const keys = await purgeExpiredIdempotencyKeys(deps.db);
    const ctx = jobContext(deps, PURGE_EXPIRED.name);
    // Weeks first: a week made ahead matters more than one dropped on time.
    const weeksMade = await makeWeeksAhead(ctx);
    const history = await retireHistory({ ctx });
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
