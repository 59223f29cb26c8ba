import { purgeUnconfirmedAccessRequests } from '@/server/access/purge';
import { purgeOldEvents } from '@/server/events/retention';
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
    const events = await purgeOldEvents({ ctx });
    const { attempts, sessions } = await purgeOldSessions({ ctx });
    const accessRequests = await purgeUnconfirmedAccessRequests({ ctx });
    const failedRequests = await purgeOldFailedRequests({ ctx });
    const notices = await purgeOldNotices({ ctx });
    deps.log.info(
      {
        idempotency_keys: keys,
        events,
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
