import { deliverQueuedMail } from '@/server/mail/deliver';
import { SEND_MAIL } from '@/server/outbox/queues';
import { defineJob, jobContext } from './definition';

// A mail server that is down delays mail, never loses it: retried with doubling back-off (5 s to about 3 h, 12 times);
// a message still unsent stays queued with its last error.
export const sendMailJob = defineJob({
  queue: SEND_MAIL,
  settings: { retryLimit: 12, retryDelay: 5, retryBackoff: true, expireInSeconds: 30 },
  async handle(data, deps) {
    await deliverQueuedMail({ ctx: jobContext(deps, SEND_MAIL.name), input: { messageId: data.message_id } });
  },
});
