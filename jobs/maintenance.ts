import { z } from 'zod';
import { purgeOldEvents } from '@/server/events/retention';
import { purgeExpiredIdempotencyKeys } from '@/server/idempotency/store';
import { defineJob, jobContext } from './definition';

export const purgeExpiredJob = defineJob({
  name: 'maintenance.purge-expired',
  payload: z.object({}).passthrough(),
  schedule: '*/15 * * * *',
  queue: { policy: 'singleton', retryLimit: 2 },
  async handle(_data, rt) {
    const keys = await purgeExpiredIdempotencyKeys(rt.db);
    const events = await purgeOldEvents({ ctx: jobContext(rt, 'maintenance.purge-expired') });
    rt.log.info({ idempotency_keys: keys, events }, 'purged expired rows');
  },
});
