import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, type ServerProcess } from '../support/processes';
import { clientFor, expectStatus, newOrder, newSubscription } from '../support/partner-api';
import { pastEvents, replay, replayOf, startReplay } from '../support/replays';
import { waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Replays across real worker processes: a worker SIGKILLed mid-replay is resumed by another from the
// stored cursor, and a 20,000-event backfill leaves live webhooks arriving (their latency printed).

const WORKER_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CLAIM_SECONDS: '10', WEBHOOK_SWEEP_INTERVAL_MS: '1000' };
let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const workers: ServerProcess[] = [];

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = await startReceiver((req) => (req.path === '/paced' ? { status: 200, delayMs: 20 } : { status: 200 }));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await receiver.close();
});

const eventIdOf = (r: ReceivedRequest) => r.headers['x-service-event-id']!;
const at = (path: string) => receiver.received.filter((r) => r.path === path);

async function subscribe(who: TestPartner, path: string): Promise<string> {
  return (await newSubscription(who, { url: `https://localhost:${receiver.port}${path}`, event_filters: ['order.created'] })).id;
}

describe('a replay across worker processes', () => {
  it('resumes from its cursor after the worker is SIGKILLed: every event arrives, none enqueued twice', { timeout: 120_000 }, async () => {
    const partner = await createTestPartner(svc);
    await pastEvents(svc, partner, 1000, '01M8');
    const sub = await subscribe(partner, '/paced');
    workers.push(await spawnWorker(svc.databaseUrl, WORKER_ENV));
    const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
    expect(started.events_matched).toBe(1000);
    await waitFor('a page or two sent', async () => (await replayOf(partner, sub, started.id)).events_enqueued >= 200, {
      timeoutMs: 30_000,
    });
    const enqueuedAtKill = (await replayOf(partner, sub, started.id)).events_enqueued;
    await workers.shift()!.kill();
    const killedAt = Date.now();
    workers.push(await spawnWorker(svc.databaseUrl, WORKER_ENV));

    const done = await waitFor(
      'the replay completed and every event arrived',
      async () => {
        const r = await replayOf(partner, sub, started.id);
        const got = new Set(receiver.received.filter((x) => x.path === '/paced').map(eventIdOf));
        return r.status === 'completed' && got.size === 1000 ? r : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const requests = receiver.received.filter((x) => x.path === '/paced').length;
    console.log(
      `[replay] SIGKILL after ${enqueuedAtKill} of 1000 enqueued; completed ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill; ` +
        `1000 events received in ${requests} requests (a repeat is an attempt the killed worker had in flight)`,
    );
    expect(done.events_enqueued).toBe(1000);
    // The replay itself sent each event once: every delivery has one replay attempt recorded, or two
    // where the killed worker's attempt in flight was taken over.
    const [twice] = await svc.rt.db.execute<{ n: number }>(sql`
      select count(*)::int as n from (select delivery_id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where d.replay_id = ${started.id} and a.trigger = 'replay' group by delivery_id having count(*) > 2) x`);
    expect(twice!.n).toBe(0);
  });

  it(
    "SIGTERM mid-replay drains the worker's replay thread: one drain line counts its attempts, exit 0, the next worker completes it",
    { timeout: 120_000 },
    async () => {
      const partner = await createTestPartner(svc);
      await pastEvents(svc, partner, 600, '01M2');
      const sub = await subscribe(partner, '/paced');
      // The only worker: one left by an earlier test would take pages of this replay, and its drain would not count them.
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      // `npm run worker` with WORKER_QUEUES unset: the replay's pages go to its replay thread (REPLAY_THREAD=on).
      const worker = await spawnWorker(svc.databaseUrl, { ...WORKER_ENV, LOG_LEVEL: 'info' });
      workers.push(worker);
      const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
      // This test's events: their ids carry its prefix after the time (pastEvents).
      const got = () =>
        new Set(
          at('/paced')
            .map(eventIdOf)
            .filter((id) => id.slice(10, 14) === '01M2'),
        );
      await waitFor('the replay under way', () => got().size >= 50, { timeoutMs: 30_000 });
      worker.signal('SIGTERM');
      expect((await worker.exited).code).toBe(0);
      workers.splice(workers.indexOf(worker), 1);
      const drainLines = worker.output
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'shut down: drained');
      // The process's line only (the thread's own is at debug), counting the thread's replayed attempts: the worker
      // sent nothing else.
      expect(drainLines).toHaveLength(1);
      const drained = drainLines[0]!;
      const counted = ['attempts_finished', 'attempts_released', 'attempts_returned_unsent'].map((k) => Number(drained[k] ?? 0));
      expect(counted.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(drained.attempts_released).toBe(0);

      workers.push(await spawnWorker(svc.databaseUrl, WORKER_ENV));
      await waitFor(
        'the replay completed and every event arrived',
        async () => ((await replayOf(partner, sub, started.id)).status === 'completed' && got().size === 600 ? true : undefined),
        { timeoutMs: 90_000, intervalMs: 500 },
      );
    },
  );

  it(
    'failed: finds the few failed deliveries among thousands delivered, across pages that read 1,000 events each',
    { timeout: 60_000 },
    async () => {
      while (workers.length < 1) workers.push(await spawnWorker(svc.databaseUrl, WORKER_ENV));
      const partner = await createTestPartner(svc);
      await pastEvents(svc, partner, 2500, '01M6');
      const sub = await subscribe(partner, '/sparse');
      // Every event delivered to it but three, one in each run of 1,000 a page step reads.
      const failed = (
        await svc.rt.db.execute<{ id: string }>(
          sql`select id from events where partner_id = ${partner.partnerId} and object_id in ('order_1', 'order_1500', 'order_2500') order by id`,
        )
      ).map((r) => r.id);
      expect(failed).toHaveLength(3);
      await svc.rt.db.execute(sql`
      insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at)
      select 'dlv_' || e.id, e.id, ${sub}::text, e.type,
        (case when e.id = any(string_to_array(${failed.join(',')}, ',')) then 'failed' else 'succeeded' end)::webhook_delivery_status, 1, now(), now()
      from events e where e.partner_id = ${partner.partnerId}`);
      const window = { since: Math.floor(Date.now() / 1000) - 3600, only: 'failed' } as const;
      const dry = expectStatus(200, await replay(partner, sub, { ...window, dry_run: true }));
      expect(dry).toMatchObject({ events_matched: 3, first_event_ids: failed });
      const started = await startReplay(partner, sub, window);
      const done = await waitFor(
        'the replay completed with the three failed events',
        async () => {
          const r = await replayOf(partner, sub, started.id);
          return r.status === 'completed' && at('/sparse').length === 3 ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(done.events_enqueued).toBe(3);
      expect(at('/sparse').map(eventIdOf).sort()).toEqual(failed);
    },
  );

  it(
    'WORKER_QUEUES: a replay waits for a worker that works its pages, while live webhooks go on through the other',
    { timeout: 120_000 },
    async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      workers.push(await spawnWorker(svc.databaseUrl, { ...WORKER_ENV, WORKER_QUEUES: '-webhooks.replay-page' }));
      const partner = await createTestPartner(svc);
      await pastEvents(svc, partner, 300, '01M5');
      const sub = await subscribe(partner, '/dedicated');
      const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
      expect(started.events_matched).toBe(300);
      const order = await newOrder(partner);
      const live = await waitFor('the live order.created', () => at('/dedicated').find((r) => r.rawBody.toString().includes(order.id)), {
        timeoutMs: 30_000,
      });
      // No process works the replay's pages yet: after four of their polling intervals (0.5 s) beside a worker that
      // works every other queue, the first page's job is still waiting unfetched and none of its events went out.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const pageJobs = await svc.rt.db.execute<{ state: string }>(
        sql`select state from pgboss.job where name = 'webhooks.replay-page' and data->>'replay_id' = ${started.id}`,
      );
      expect(pageJobs.map((j) => j.state)).toEqual(['created']);
      expect((await replayOf(partner, sub, started.id)).events_enqueued).toBe(0);
      expect(at('/dedicated').filter((r) => eventIdOf(r) !== eventIdOf(live))).toHaveLength(0);

      workers.push(await spawnWorker(svc.databaseUrl, { ...WORKER_ENV, WORKER_QUEUES: 'webhooks.replay-page' }));
      const done = await waitFor(
        'the replay completed by the worker of its pages, its 300 events arrived',
        async () => {
          const r = await replayOf(partner, sub, started.id);
          return r.status === 'completed' && new Set(at('/dedicated').map(eventIdOf)).size === 301 ? r : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      expect(done.events_enqueued).toBe(300);
    },
  );

  it('a 20,000-event backfill leaves live webhooks arriving (live latency printed)', { timeout: 180_000 }, async () => {
    while (workers.length < 1) workers.push(await spawnWorker(svc.databaseUrl, WORKER_ENV));
    const partner = await createTestPartner(svc);
    await pastEvents(svc, partner, 20_000, '01M7');
    const sub = await subscribe(partner, '/backfill');
    const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
    expect(started.events_matched).toBe(20_000);
    await waitFor('the backfill under way', async () => (await replayOf(partner, sub, started.id)).events_enqueued >= 1000, {
      timeoutMs: 60_000,
    });

    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const order = await newOrder(partner);
      const committed = Date.now();
      const got = await waitFor(
        'a live order.created during the backfill',
        () => receiver.received.find((r) => r.path === '/backfill' && r.rawBody.toString().includes(order.id)),
        { timeoutMs: 30_000, intervalMs: 5 },
      );
      latencies.push(got.at - committed);
    }
    const during = await replayOf(partner, sub, started.id);
    console.log(
      `[replay] live order.created commit-to-receipt during a 20,000-event backfill (${during.events_enqueued} enqueued so far): ` +
        `[${latencies.join(', ')}] ms, max ${Math.max(...latencies)} ms`,
    );
    expect(during.status).not.toBe('failed');
    // Clean-up, whether or not the backfill finished meanwhile (then a 409).
    await clientFor(partner).POST('/partner/webhooks/{id}/replays/{replay_id}/cancel', {
      params: { path: { id: sub, replay_id: started.id } },
    });
  });
});
