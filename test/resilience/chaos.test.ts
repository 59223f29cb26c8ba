import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_EXPIRED, SANDBOX_TIMEOUT_SWEEP } from '@/server/outbox/queues';
import { call, type Caller } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { startOwnPostgres } from '../support/own-postgres';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';
import { spawnWorker, type ServerProcess } from '../support/processes';

// Chaos against real processes: a burst of orders whose sandbox scenarios run by themselves (fan-out,
// deliveries, retries, scenario steps, and the scheduled queues sent by hand), while worker processes
// are SIGKILLed and restarted, the HTTPS receiver goes down for a few seconds, and Postgres restarts.
// Then every event the database holds must have reached each subscription at least once.

const WORKER_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,3,5,5,5',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_CLAIM_SECONDS: '10',
  WEBHOOK_SWEEP_INTERVAL_MS: '1000',
};

let pg: Awaited<ReturnType<typeof startOwnPostgres>>;
let web: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let receiverPort: number;
const received: ReceivedRequest[] = [];
const workers: ServerProcess[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres('chaos');
  web = await startTestService({ WORKERS: 'off', ...WORKER_ENV }, { databaseUrl: pg.url });
  partner = await createTestPartner(web);
  receiver = await startReceiver();
  receiverPort = receiver.port;
  for (let i = 0; i < 2; i++) workers.push(await spawnWorker(pg.url, WORKER_ENV));
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await receiver?.close();
  await web?.stop();
  await pg?.remove();
});

const caller = (): Caller => ({ baseUrl: web.url!, headers: partner.headers });

/** An order with a fast sandbox scenario; undefined when the service refused it (e.g. 503 while Postgres restarts). */
async function tryOrder(scenario: string): Promise<string | undefined> {
  const quote = await call('POST', '/partner/quotes', caller(), NYC, { timeoutMs: 15_000 }).catch(() => undefined);
  if (quote?.status !== 201) return undefined;
  const order = await call(
    'POST',
    '/partner/orders',
    caller(),
    { quote_id: quote.body.id, simulation: { scenario, step_seconds: 1 } },
    { timeoutMs: 15_000 },
  ).catch(() => undefined);
  return order?.status === 201 ? order.body.id : undefined;
}

async function killAndRestart(i: number): Promise<void> {
  await workers[i]!.kill();
  workers[i] = await spawnWorker(pg.url, WORKER_ENV);
}

async function receiverOutage(ms: number): Promise<void> {
  received.push(...receiver!.received);
  await receiver!.close();
  receiver = undefined;
  await settle(ms, 'the receiver is down for this long');
  receiver = await startReceiver(undefined, { port: receiverPort });
}

async function restartPostgres(): Promise<void> {
  await pg.stop();
  await settle(1000, 'Postgres stays down for a second under load');
  await pg.start();
}

describe('chaos', () => {
  it('loses no event: workers SIGKILLed, the receiver down, Postgres restarted, all during a burst', { timeout: 240_000 }, async () => {
    for (const path of ['/chaos/a', '/chaos/b']) {
      const res = await call('POST', '/partner/webhooks', partner, { url: `https://localhost:${receiverPort}${path}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const scenarios = ['happy_path', 'courier_unassigned', 'return_to_pickup', 'cancelled_by_courier'];
    const orders: (string | undefined)[] = [];
    const burst = (async () => {
      for (let round = 0; round < 12; round++) {
        orders.push(...(await Promise.all(scenarios.map((s) => tryOrder(s)))));
        await settle(400, 'orders keep coming for about eight seconds');
      }
    })();
    // The scheduled queues, exercised during the burst too.
    await web.rt.boss!.send(PURGE_EXPIRED.name, {});
    await web.rt.boss!.send(SANDBOX_TIMEOUT_SWEEP.name, {});

    await settle(1000, 'the burst is under way');
    await killAndRestart(0);
    await settle(1000, 'between two kills');
    await killAndRestart(1);
    await receiverOutage(3000);
    await restartPostgres();
    await killAndRestart(0);
    await burst;
    await settle(1500, 'the last orders get their first events');
    await killAndRestart(1);

    const accepted = orders.filter((o): o is string => o !== undefined);
    // Every scenario runs to its end (a sandbox order stuck mid-way would show here), then every event
    // of every order must have reached both subscriptions.
    await waitFor(
      'every scenario at its end',
      async () => {
        const [row] = await web.rt.db.execute<{ open: number }>(
          sql`select count(*)::int as open from orders where status not in ('delivered', 'returned', 'cancelled')`,
        );
        return row!.open === 0;
      },
      {
        timeoutMs: 120_000,
        intervalMs: 500,
        ignoreErrors: true,
        context: () => workers.map((w) => w.output.slice(-20).join('')).join('\n'),
      },
    );
    const events = await web.rt.db.execute<{ id: string }>(sql`select id from events where partner_id = ${partner.partnerId}`);
    const expected = events.flatMap((e) => ['/chaos/a', '/chaos/b'].map((p) => `${p} ${e.id}`));
    const keyOf = (r: ReceivedRequest) => `${r.path} ${r.headers['x-service-event-id']}`;
    const all = () => [...received, ...(receiver?.received ?? [])].filter((r) => r.path.startsWith('/chaos/'));
    await waitFor('every event at both subscriptions', () => new Set(all().map(keyOf)).size >= expected.length, {
      timeoutMs: 90_000,
      intervalMs: 500,
    });

    const counts = new Map<string, number>();
    for (const r of all()) counts.set(keyOf(r), (counts.get(keyOf(r)) ?? 0) + 1);
    const missing = expected.filter((k) => !counts.has(k));
    const duplicated = [...counts.values()].filter((n) => n > 1).length;
    console.log(
      `[chaos] orders accepted ${accepted.length} of ${orders.length}; deliveries expected ${expected.length}, received ${counts.size} distinct ` +
        `(${all().length} requests), missing ${missing.length}, duplicated ${duplicated} (at least once: a duplicate is allowed, a loss is not)`,
    );
    expect(accepted.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
    // Nothing arrived that the database does not hold.
    expect([...counts.keys()].filter((k) => !expected.includes(k))).toEqual([]);
  });
});
