import { advanceNotices } from '@/server/notices/advance';
import { NOTICES } from '@/server/outbox/queues';
import { defineJob, jobContext } from './definition';

// The failure notices' clock: every minute, the stages that time alone reached (a quiet endpoint's
// streak grows old without a failure to notice it). A failure or success that moves a streak enqueues
// a job for its subscription at once (server/delivery/). Runs on any number of workers at once: a
// stage is claimed by its row, so it is announced once.
export const noticesJob = defineJob({
  queue: NOTICES,
  everyMinutes: 1,
  settings: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 40 },
  async handle(data, deps) {
    const announced = await advanceNotices({
      ctx: jobContext(deps, NOTICES.name),
      input: { subscriptionId: data.subscription_id },
    });
    for (const a of announced) {
      deps.log.info(
        { subscription_id: a.subscription_id, stage: a.stage, mails: a.mails.length, event_id: a.event_id },
        'webhook failure notice sent',
      );
    }
  },
});
