import type { Deps } from '@/server/context';
import { enqueueMany } from '@/server/outbox/enqueue';
import { DELIVER, FAN_OUT, type DeliverJob } from '@/server/outbox/queues';
import { attemptDeliveries, USER_AGENT } from '@/server/webhooks/deliver';
import { fanOutEvent } from '@/server/webhooks/fan-out';
import { createWebhookClient, type WebhookClient } from '@/server/webhooks/http-client';
import { defineJob, jobContext } from './definition';

export const fanOutJob = defineJob({
  queue: FAN_OUT,
  settings: { retryLimit: 10, retryDelay: 2, retryBackoff: true },
  // pg-boss waits the polling interval between fetches even when the queue is full, so one job per
  // fetch capped the outbox at one event a second per process; a batch per fetch keeps up with bursts.
  // A failed batch is retried whole, which fan-out, one delivery per (event, subscription), tolerates.
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 2,
  parallel: true,
  async handle(data, deps) {
    const result = await fanOutEvent({ ctx: jobContext(deps, FAN_OUT.name), input: { eventId: data.event_id } });
    deps.log.debug(result, 'event fanned out');
  },
});

const clients = new WeakMap<Deps, WebhookClient>();
function clientFor(deps: Deps): WebhookClient {
  let client = clients.get(deps);
  if (!client) {
    client = createWebhookClient({
      resolve: (host) => deps.resolver(host),
      allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: deps.env.WEBHOOK_TIMEOUT_MS,
      userAgent: USER_AGENT,
    });
    clients.set(deps, client);
  }
  return client;
}

// In-flight attempts per subscription in this process. A job for a subscription at its limit is put
// back for a second instead of waiting, so a slow endpoint holds only its own slots. A fetched batch
// is handled as one (claimed in one statement, successes recorded in one): see attemptDeliveries.
const inFlight = new Map<string, number>();

export const deliverJob = defineJob({
  queue: DELIVER,
  // A job whose worker died expires after this and is retried; the attempt's claim in the database
  // (server/webhooks/deliver.ts) keeps a slow-but-alive worker and its successor from both sending.
  settings: { retryLimit: 50, retryDelay: 1, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 2,
  handle: (data, deps) => deliverBatch([data], deps),
  handleBatch: (batch, deps) => deliverBatch(batch, deps),
});

/** One fetched batch: attempts for subscriptions under their in-flight limit now, the rest a second later. */
async function deliverBatch(batch: DeliverJob[], deps: Deps): Promise<void> {
  const admitted: DeliverJob[] = [];
  const deferred: DeliverJob[] = [];
  for (const data of batch) {
    const busy = inFlight.get(data.subscription_id) ?? 0;
    if (busy >= deps.env.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION) {
      deferred.push(data);
      continue;
    }
    inFlight.set(data.subscription_id, busy + 1);
    admitted.push(data);
  }
  const ctx = jobContext(deps, DELIVER.name);
  await enqueueMany(
    ctx,
    DELIVER,
    deferred.map((data) => ({ data, startAfterSeconds: 1 })),
  );
  try {
    const results = await attemptDeliveries({ ctx, inputs: admitted, client: clientFor(deps) });
    deps.log.debug({ attempts: admitted.length, results }, 'webhook attempts');
  } finally {
    for (const data of admitted) {
      const left = (inFlight.get(data.subscription_id) ?? 1) - 1;
      if (left <= 0) inFlight.delete(data.subscription_id);
      else inFlight.set(data.subscription_id, left);
    }
  }
}
