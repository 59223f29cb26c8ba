import { DELIVER, FAN_OUT } from '@/server/outbox/queues';
import { claimAttempts } from '@/server/delivery/claim';
import { fanOutEvents } from '@/server/delivery/fan-out';
import { defineJob, jobContext } from './definition';
import { deliveryEngineOf } from './delivery-engine';

// Both queues hand claimed attempts to the process's delivery engine and complete at once: a job is
// done when its attempts are claimed, not when they are sent, so no fetch loop waits on a receiver.

export const fanOutJob = defineJob({
  queue: FAN_OUT,
  // Fan-out is database work only (the attempts run in the engine): a dead worker's batch is retried
  // after 30 s, and a retried batch creates nothing twice (one delivery per event and subscription).
  settings: { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 30 },
  // pg-boss waits the polling interval between fetches even when the queue is full; a batch per
  // fetch, fanned out together (server/delivery/fan-out.ts: two round trips a batch), keeps up with bursts.
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 2,
  handle: (data, deps) => fanOutBatch([data], deps),
  handleBatch: (batch, deps) => fanOutBatch(batch, deps),
});

async function fanOutBatch(batch: { event_id: string }[], deps: Parameters<typeof jobContext>[0]): Promise<void> {
  const engine = deliveryEngineOf(deps);
  await engine.waitForRoom();
  const claimedAt = performance.now();
  const result = await fanOutEvents({
    ctx: jobContext(deps, FAN_OUT.name),
    input: { eventIds: batch.map((j) => j.event_id), holder: engine.holder },
  });
  await engine.accept(result.claimed, claimedAt);
  deps.log.debug(
    { events: batch.length, found: result.found, attempts: result.claimed.length, skipped: result.skipped },
    'events fanned out',
  );
}

export const deliverJob = defineJob({
  queue: DELIVER,
  // Retries, and attempts returned by a worker: claimed in one statement, then made by the engine.
  settings: { retryLimit: 50, retryDelay: 1, expireInSeconds: 30 },
  work: { pollingIntervalSeconds: 0.5, batchSize: 50 },
  loops: 1,
  handle: (data, deps) => deliverBatch([data], deps),
  handleBatch: (batch, deps) => deliverBatch(batch, deps),
});

async function deliverBatch(batch: Parameters<typeof claimAttempts>[1], deps: Parameters<typeof jobContext>[0]): Promise<void> {
  const engine = deliveryEngineOf(deps);
  await engine.waitForRoom();
  const claimedAt = performance.now();
  await engine.accept(await claimAttempts(jobContext(deps, DELIVER.name), batch, engine.holder), claimedAt);
}
