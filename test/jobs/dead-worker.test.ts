import { sql } from 'drizzle-orm';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoss } from '@/jobs/boss';
import { createLogger } from '@/server/logger';
import { newId } from '@/server/ids';
import { DELIVER, FAN_OUT, PURGE_EXPIRED, REPLAY_PAGE, SANDBOX_TIMEOUT_SWEEP, SCENARIO_STEP } from '@/server/outbox/queues';
import { spawnWorker, type ServerProcess } from '../support/processes';
import { clientFor, expectStatus, getOrder, newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// A job held by a worker that died (fetched, never completed, its process gone) goes to a live worker
// within 60 s, on every queue. The web process here runs no workers, so each job waits until the
// "dead" pg-boss client below takes it; then a real worker process starts, and each job must be run
// again by it, and do its work, within the bound.

const BOUND_MS = 60_000;
let svc: TestService;
let partner: TestPartner;
let worker: ServerProcess | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver.close();
});

async function jobState(id: string): Promise<string | undefined> {
  const [row] = await svc.rt.db.execute<{ state: string }>(sql`select state from pgboss.job where id = ${id}`);
  return row?.state;
}

/** Takes the one queued job of `queue` as a worker would, and dies holding it: the job stays active. */
async function takeAndDie(queue: string, id: string): Promise<number> {
  const dead: PgBoss = await startBoss({ databaseUrl: svc.databaseUrl, log: createLogger('silent'), supervise: false });
  const jobs = await dead.fetch(queue);
  expect(jobs?.map((j) => j.id)).toEqual([id]);
  const heldAt = Date.now();
  // Closing its pool without completing or failing anything: what a SIGKILL leaves behind.
  await dead.stop({ graceful: false, wait: true });
  expect(await jobState(id)).toBe('active');
  return heldAt;
}

async function subscribe(path: string): Promise<string> {
  return (await newSubscription(partner, { url: `https://localhost:${receiver.port}${path}` })).id;
}

const jobIdOf = async (queue: string, where: ReturnType<typeof sql>) => {
  const [row] = await svc.rt.db.execute<{ id: string }>(sql`select id from pgboss.job where name = ${queue} and ${where}`);
  return row!.id;
};

describe('a job held by a dead worker', () => {
  it('goes to a live worker within 60 s on every queue, and does its work', { timeout: 150_000 }, async () => {
    // fan-out: an order's order.created event, fanned out to a subscription once a live worker has it.
    await subscribe('/fanout');
    const order = await newOrder(partner);
    const fanOutJob = await jobIdOf(FAN_OUT.name, sql`data->>'event_id' = (select id from events where object_id = ${order.id})`);

    // deliver: a delivery whose attempt is a job (as a retry is), for a webhook.test event; the job names no event_id,
    // as one enqueued before jobs carried it (claimAttempts reads it).
    const testSub = await subscribe('/deliver');
    const api = clientFor(partner);
    const test = expectStatus(202, await api.POST('/partner/webhooks/{id}/test', { params: { path: { id: testSub } } }));
    const deliveryId = newId();
    await svc.rt.db
      .execute(sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at)
      values (${deliveryId}, ${test.id}, ${testSub}, 'webhook.test', 'pending', 0, now(), now())`);
    const deliverJob = (await svc.rt.boss!.send(DELIVER.name, { delivery_id: deliveryId, subscription_id: testSub, attempt: 1 }))!;

    // scenario step: a sandbox order's first robot step.
    const robot = await newOrder(partner, { simulation: { scenario: 'happy_path', step_seconds: 1 } });
    const stepJob = await jobIdOf(SCENARIO_STEP.name, sql`data->>'order_id' = ${robot.id}`);

    // the scheduled queues, sent by hand (the web process schedules nothing).
    // replay page: a replay of the subscription's missed events (the order's, made before the worker ran).
    const replaySub = await subscribe('/replay');
    const replay = expectStatus(
      202,
      await api.POST('/partner/webhooks/{id}/replay', {
        params: { path: { id: replaySub } },
        body: { since: Math.floor(Date.now() / 1000) - 60, only: 'missing' },
      }),
    );
    // 200 answers a dry run, 202 a replay: the type is their union.
    if (!('id' in replay)) throw new Error(`a dry run answered: ${JSON.stringify(replay)}`);
    const replayJob = await jobIdOf(REPLAY_PAGE.name, sql`data->>'replay_id' = ${replay.id}`);

    const purgeJob = (await svc.rt.boss!.send(PURGE_EXPIRED.name, {}))!;
    const sweepJob = (await svc.rt.boss!.send(SANDBOX_TIMEOUT_SWEEP.name, {}))!;
    // The scenario step is due after step_seconds.
    await waitFor(
      'the scenario step to be due',
      async () => (await svc.rt.db.execute(sql`select 1 from pgboss.job where id = ${stepJob} and start_after <= now()`)).length === 1,
    );

    const held: [string, string, number][] = [];
    for (const [queue, id] of [
      [FAN_OUT.name, fanOutJob],
      [DELIVER.name, deliverJob],
      [SCENARIO_STEP.name, stepJob],
      [PURGE_EXPIRED.name, purgeJob],
      [SANDBOX_TIMEOUT_SWEEP.name, sweepJob],
      [REPLAY_PAGE.name, replayJob],
    ] as const) {
      held.push([queue, id, await takeAndDie(queue, id)]);
    }

    worker = await spawnWorker(svc.databaseUrl, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    const recovered = await Promise.all(
      held.map(async ([queue, id, heldAt]) => {
        await waitFor(`${queue} job ${id} completed by the live worker`, async () => (await jobState(id)) === 'completed', {
          timeoutMs: BOUND_MS + 15_000,
          intervalMs: 200,
          context: () => worker!.output.join(''),
        });
        return [queue, (Date.now() - heldAt) / 1000] as const;
      }),
    );
    console.log(`[dead worker] held job -> completed by a live worker: ${recovered.map(([q, s]) => `${q} ${s.toFixed(1)} s`).join(', ')}`);
    for (const [, seconds] of recovered) expect(seconds).toBeLessThanOrEqual(BOUND_MS / 1000);

    // And each did its work.
    const got = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.rawBody.toString()));
    await waitFor('the fanned-out order.created', () =>
      got('/fanout').some((e) => e.type === 'order.created' && e.data.object.id === order.id),
    );
    await waitFor('the delivered webhook.test', () => got('/deliver').some((e) => e.id === test.id));
    await waitFor('the replayed order.created', () =>
      got('/replay').some((e) => e.type === 'order.created' && e.data.object.id === order.id),
    );
    expect((await getOrder(partner, robot.id)).status).not.toBe('created');
  });
});
