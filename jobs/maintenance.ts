import { z } from 'zod';
import { purgeExpiredIdempotencyKeys } from '@/server/idempotency/store';
import { defineJob } from './definition';

export const purgeExpiredJob = defineJob({
  name: 'maintenance.purge-expired',
  payload: z.object({}).passthrough(),
  schedule: '*/15 * * * *',
  queue: { policy: 'singleton', retryLimit: 2 },
  async handle(_data, rt) {
    const keys = await purgeExpiredIdempotencyKeys(rt.db);
    rt.log.info({ idempotency_keys: keys }, 'purged expired rows');
  },
});
