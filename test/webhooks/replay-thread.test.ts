import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryEngineOf } from '@/jobs/delivery-engine';
import { forwardingMetrics } from '@/server/boot/replay-thread';
import { newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { pastEvents, replayOf, startReplay } from '../support/replays';
import { createTestPartner, startTestService, type TestService } from '../support/service';

// REPLAY_THREAD=on (npm start's default): a process that works every queue gives the replays' pages to a worker thread
// of its own, whose engine claims, sends and records the replayed attempts; the process's own engine keeps the live ones.

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  // /held answers once the test lets it: the replay's attempts stay in flight, claimed, until then.
  receiver = await startReceiver((req) => (req.path === '/held' ? { status: 200, after: held } : { status: 200 }));
});
afterAll(() => receiver.close());

const eventIdOf = (r: ReceivedRequest) => r.headers['x-service-event-id']!;
const at = (path: string) => receiver.received.filter((r) => r.path === path);

/** pdp_db_pool_connections by "pool state" (e.g. "replays max"). */
async function poolGauges(svc: TestService): Promise<Map<string, number>> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  const gauges = new Map<string, number>();
  for (const m of text.matchAll(/^pdp_db_pool_connections\{pool="([^"]+)",state="([^"]+)"\} (\S+)$/gm))
    gauges.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return gauges;
}

async function heartbeats(svc: TestService): Promise<string[]> {
  const rows = await svc.rt.db.execute<{ id: string }>(sql`select id from worker_heartbeats`);
  return rows.map((r) => r.id);
}

/** Each thread of this process's scheduling priority (nice: the 19th field of /proc/<pid>/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the replay thread', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { replayThread: true });
  });

  it('sends a replay from an engine of its own while the process sends the live webhooks; its counts reach /metrics', async () => {
    const partner = await createTestPartner(svc);
    await pastEvents(svc, partner, 300, '01M4');
    const sub = (await newSubscription(partner, { url: `https://localhost:${receiver.port}/held`, event_filters: ['order.created'] })).id;
    await newSubscription(partner, { url: `https://localhost:${receiver.port}/live`, event_filters: ['order.created'] });

    // Two engines beat on this file's database: the process's and the thread's.
    const processEngine = deliveryEngineOf(svc.rt).holder;
    const engines = await heartbeats(svc);
    expect(engines).toHaveLength(2);
    expect(engines).toContain(processEngine);
    const threadEngine = engines.find((id) => id !== processEngine)!;
    // The thread runs at nice 10 (on Linux, where a thread has an id of its own): the process's threads at their own.
    expect(threadNices()).toContain(10);

    const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
    expect(started.events_matched).toBe(300);
    // While the receiver holds them, the replayed attempts are claimed: every claim is the thread's engine's.
    await waitFor('replayed attempts in flight', () => at('/held').length >= 5, { timeoutMs: 30_000 });
    const claimers = await svc.rt.db.execute<{ claimed_by: string; n: number }>(sql`
      select claimed_by, count(*)::int as n from webhook_deliveries
      where subscription_id = ${sub} and claimed_by is not null group by claimed_by`);
    expect(claimers.map((c) => c.claimed_by)).toEqual([threadEngine]);

    // A live order's webhook goes out meanwhile, from the process's own engine (its delivery recorded by it).
    const order = await newOrder(partner);
    const ofOrder = (r: ReceivedRequest) =>
      (JSON.parse(r.rawBody.toString()) as { data: { object: { id: string } } }).data.object.id === order.id;
    await waitFor('the live webhook', () => at('/live').some(ofOrder), { timeoutMs: 15_000 });

    release();
    await waitFor('the replay completed', async () => (await replayOf(partner, sub, started.id)).status === 'completed', {
      timeoutMs: 60_000,
    });
    await waitFor('every replayed delivery recorded', async () => (await replayOf(partner, sub, started.id)).events_delivered === 300, {
      timeoutMs: 30_000,
    });
    // The live order's event reached /held as well (the subscription hears order.created): the rest is the replay's.
    const ids = at('/held')
      .filter((r) => !ofOrder(r))
      .map(eventIdOf);
    expect(new Set(ids).size).toBe(300);
    expect(ids).toHaveLength(300);

    // The thread's engine counted the 300 replayed attempts into the process's registry (forwarded every 100 ms).
    await waitFor(
      'the replayed attempts in /metrics',
      async () => {
        const text = await (await fetch(`${svc.url}/metrics`)).text();
        return text
          .split('\n')
          .filter(
            (line) =>
              line.startsWith('pdp_webhook_attempts_total{') && line.includes('trigger="replay"') && line.includes('result="succeeded"'),
          )
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      },
      { until: (n) => n === 300, timeoutMs: 5000 },
    );
    // The thread's pool in the pool gauges (reported every second), its size the process's DB_POOL_MAX.
    const pools = await poolGauges(svc);
    expect(pools.get('replays max')).toBe(pools.get('primary max'));
    expect(pools.get('replays in_use')).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('drains with the process: the thread stops, its engine leaves, the drain counts its attempts', async () => {
    const report = await svc.stop({ deadlineMs: 2000 });
    expect(report.attempts).toMatchObject({ returnedUnsent: 0, released: 0 });
    // Both engines left on purpose: no heartbeat waits to go stale.
    const db = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
    const [row] = await db<{ n: number }[]>`select count(*)::int as n from worker_heartbeats`;
    await db.end();
    expect(row!.n).toBe(0);
  });
});

describe('without the thread', () => {
  it('REPLAY_THREAD=off, or a WORKER_QUEUES of its own: one engine, the process works the replays itself', async () => {
    for (const overrides of [{ REPLAY_THREAD: 'off' }, { WORKER_QUEUES: '-webhooks.notices' }] as Record<string, string>[]) {
      const svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...overrides }, { replayThread: true });
      expect(await heartbeats(svc)).toEqual([deliveryEngineOf(svc.rt).holder]);
      expect(threadNices()).not.toContain(10);
      expect([...(await poolGauges(svc)).keys()].filter((k) => k.startsWith('replays'))).toEqual([]);
      const partner = await createTestPartner(svc);
      await pastEvents(svc, partner, 50, '01M3');
      const sub = (await newSubscription(partner, { url: `https://localhost:${receiver.port}/alone`, event_filters: ['order.created'] }))
        .id;
      const started = await startReplay(partner, sub, { since: Math.floor(Date.now() / 1000) - 3600, only: 'missing' });
      await waitFor('the replay delivered', async () => (await replayOf(partner, sub, started.id)).events_delivered === 50, {
        timeoutMs: 30_000,
      });
      await svc.stop();
    }
  }, 120_000);
});

describe('forwardingMetrics', () => {
  it('keeps the calls and sends them in one message per interval, and at flush', async () => {
    const sent: unknown[][] = [];
    const metrics = forwardingMetrics((calls) => sent.push(calls));
    metrics.attempt('succeeded', 'none', 'replay', '2026-01-01', 0.01, undefined);
    metrics.delivery('succeeded', '2026-01-01');
    expect(sent).toHaveLength(0);
    await waitFor('the interval', () => sent.length, { until: (n) => n === 1, timeoutMs: 1000 });
    expect(sent[0]).toEqual([
      ['attempt', ['succeeded', 'none', 'replay', '2026-01-01', 0.01, undefined]],
      ['delivery', ['succeeded', '2026-01-01']],
    ]);
    metrics.claimRenewalLate();
    metrics.flush();
    expect(sent).toEqual([sent[0], [['claimRenewalLate', []]]]);
  });
});
