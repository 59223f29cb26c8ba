import { z } from 'zod';
import { FAN_OUT_QUEUE } from '@/server/events/emit';
import type { Runtime } from '@/server/runtime';
import { attemptDeliveries, DELIVER_QUEUE, USER_AGENT, type DeliverJob } from '@/server/webhooks/deliver';
import { fanOutEvent } from '@/server/webhooks/fan-out';
import { createWebhookClient, type WebhookClient } from '@/server/webhooks/http-client';
import { defineJob, jobContext } from './definition';

export const fanOutJob = defineJob({
  name: FAN_OUT_QUEUE,
  payload: z.object({ event_id: z.string() }),
  queue: { retryLimit: 10, retryDelay: 2, retryBackoff: true },
  // pg-boss waits the polling interval between fetches even when the queue is full, so one job per
  // fetch capped the outbox at one event a second per process; a batch per fetch keeps up with bursts.
  // A failed batch is retried whole, which fan-out, one delivery per (event, subscription), tolerates.
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 2,
  parallel: true,
  async handle(data, rt) {
    const result = await fanOutEvent({ ctx: jobContext(rt, FAN_OUT_QUEUE), input: { eventId: data.event_id } });
    rt.log.debug(result, 'event fanned out');
  },
});

const clients = new WeakMap<Runtime, WebhookClient>();
function clientFor(rt: Runtime): WebhookClient {
  let client = clients.get(rt);
  if (!client) {
    client = createWebhookClient({ resolve: (host) => rt.resolver(host), allowPrivate: rt.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, timeoutMs: rt.env.WEBHOOK_TIMEOUT_MS, userAgent: USER_AGENT });
    clients.set(rt, client);
  }
  return client;
}

// In-flight attempts per subscription in this process. A job for a subscription at its limit is put
// back for a second instead of waiting, so a slow endpoint holds only its own slots. A fetched batch
// is handled as one (claimed in one statement, successes recorded in one): see attemptDeliveries.
const inFlight = new Map<string, number>();

export const deliverJob = defineJob({
  name: DELIVER_QUEUE,
  payload: z.object({ delivery_id: z.string(), subscription_id: z.string(), attempt: z.number().int().min(1), trigger: z.enum(['scheduled', 'manual']).optional() }),
  // A job whose worker died expires after this and is retried; the attempt's claim in the database
  // (server/webhooks/deliver.ts) keeps a slow-but-alive worker and its successor from both sending.
  queue: { retryLimit: 50, retryDelay: 1, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 2,
  handle: (data, rt) => deliverBatch([data], rt),
  handleBatch: (batch, rt) => deliverBatch(batch, rt),
});

/** One fetched batch: attempts for subscriptions under their in-flight limit now, the rest a second later. */
async function deliverBatch(batch: DeliverJob[], rt: Runtime): Promise<void> {
  const admitted: DeliverJob[] = [];
  const deferred: DeliverJob[] = [];
  for (const data of batch) {
    const busy = inFlight.get(data.subscription_id) ?? 0;
    if (busy >= rt.env.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION) {
      deferred.push(data);
      continue;
    }
    inFlight.set(data.subscription_id, busy + 1);
    admitted.push(data);
  }
  if (deferred.length > 0) await rt.boss!.insert(deferred.map((data) => ({ name: DELIVER_QUEUE, data, startAfter: new Date(Date.now() + 1000) })));
  try {
    const results = await attemptDeliveries({ ctx: jobContext(rt, DELIVER_QUEUE), inputs: admitted, client: clientFor(rt) });
    rt.log.debug({ attempts: admitted.length, results }, 'webhook attempts');
  } finally {
    for (const data of admitted) {
      const left = (inFlight.get(data.subscription_id) ?? 1) - 1;
      if (left <= 0) inFlight.delete(data.subscription_id);
      else inFlight.set(data.subscription_id, left);
    }
  }
}
