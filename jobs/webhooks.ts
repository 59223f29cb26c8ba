import { z } from 'zod';
import { FAN_OUT_QUEUE } from '@/server/events/emit';
import { fanOutEvent } from '@/server/webhooks/fan-out';
import { defineJob, jobContext } from './definition';

export const fanOutJob = defineJob({
  name: FAN_OUT_QUEUE,
  payload: z.object({ event_id: z.string() }),
  queue: { retryLimit: 10, retryDelay: 2, retryBackoff: true },
  // pg-boss waits the polling interval between fetches even when the queue is full, so one job per
  // fetch capped the outbox at one event a second per process; a batch per fetch keeps up with bursts.
  // A failed batch is retried whole, which fan-out, one delivery per (event, subscription), tolerates.
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  async handle(data, rt) {
    const result = await fanOutEvent({ ctx: jobContext(rt, FAN_OUT_QUEUE), input: { eventId: data.event_id } });
    rt.log.debug(result, 'event fanned out');
  },
});
