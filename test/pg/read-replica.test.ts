import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '@/server/config/env';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
import { waitFor } from '../support/poll';
import { createTestPartner, NYC, TEST_ENCRYPTION_KEY, type TestPartner } from '../support/service';

// Reads off the primary, on a real streaming replica (`npm run test:pg` with DATABASE_READ_URL; .ci/run
// makes one of Debian's PostgreSQL 15 with .ci/pg-replica: pg_basebackup -R of 15/main, pg_stat_statements
// preloaded on the replica only). Where a statement ran is read from the replica's own statement counter:
// a row written only to the replica is impossible, so the proof is what the replica executed.

const databaseUrl = process.env.DATABASE_URL;
const readUrl = process.env.DATABASE_READ_URL;
const MAX_LAG_SECONDS = 1;
let service: RunningProcess;
let base: string;
let partner: TestPartner;
let replica: postgres.Sql;

beforeAll(async () => {
  if (!databaseUrl || !readUrl) {
    throw new Error(
      'test/pg/read-replica.test.ts needs DATABASE_URL and DATABASE_READ_URL, a streaming replica of its server with ' +
        'pg_stat_statements preloaded (.ci/pg-replica makes one; .ci/run shows how)',
    );
  }
  replica = postgres(readUrl, { max: 1, onnotice: () => {} });
  const [{ recovering }] = await replica<[{ recovering: boolean }]>`select pg_is_in_recovery() as recovering`;
  if (!recovering) throw new Error('DATABASE_READ_URL is not a replica (pg_is_in_recovery() is false)');
  const env = loadEnv({
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...process.env,
    PORT: '0',
    CONSOLE: 'off',
    WORKERS: 'off',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
    DATABASE_READ_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
  });
  service = await startProcess(env, { web: true, workers: false });
  base = service.url!;
  partner = await createTestPartner(service);
});

afterAll(async () => {
  if (replica) {
    await replica`select pg_wal_replay_resume()`.catch(() => {});
    await replica.end();
  }
  await service?.stop();
});

const readyz = async () => (await fetch(`${base}/readyz`)).json() as Promise<{ status: string; reads?: string }>;
const get = async (path: string) => {
  const res = await fetch(`${base}${path}`, { headers: partner.headers });
  return { status: res.status, body: (await res.json()) as { id?: string; data?: { id: string }[] } };
};
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: partner.headers, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
};
const newOrder = async () => post('/partner/orders', { quote_id: (await post('/partner/quotes', NYC)).id });

/** Statements on the orders table the replica has executed (its pg_stat_statements, not the test's own). */
async function ordersStatementsOnReplica(): Promise<number> {
  const [{ calls }] = await replica<[{ calls: number }]>`
    select coalesce(sum(calls), 0)::int as calls from pg_stat_statements
    where query like '%from "orders"%' and query not like '%pg_stat_statements%'`;
  return calls;
}

const until = <T>(what: string, check: () => Promise<T>, ok: (value: T) => boolean) => waitFor(what, check, { until: ok, intervalMs: 20 });

describe('DATABASE_READ_URL on a streaming replica of PostgreSQL 15', () => {
  it('writes and the read of a just-created order run on the primary; the list runs on the replica, within the lag it tolerates', async () => {
    await until('reads on the replica', readyz, (r) => r.reads === 'replica');
    const before = await ordersStatementsOnReplica();
    const order = await newOrder();
    const answered = Date.now();
    // The partner sees its own new order at once: GET by id reads the primary.
    const got = await get(`/partner/orders/${order.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(order.id);
    expect(await ordersStatementsOnReplica()).toBe(before);

    // The list reads the replica, which has the order once it replayed the commit.
    let lists = 0;
    const listed = await until(
      'the order in the list',
      () => (lists++, get('/partner/orders')),
      (r) => r.body.data?.some((o) => o.id === order.id) === true,
    );
    const lagMs = Date.now() - answered;
    console.log(
      `[test:pg] a new order in the replica's list ${lagMs} ms after its POST answered, at list ${lists} (lag bound ${MAX_LAG_SECONDS} s)`,
    );
    expect(listed.status).toBe(200);
    expect(await ordersStatementsOnReplica()).toBeGreaterThan(before);
    expect(lagMs).toBeLessThan((MAX_LAG_SECONDS + 1) * 1000);
  });

  it('leaves the replica while it lags past DATABASE_READ_MAX_LAG_SECONDS (replay paused): lists read the primary, ready throughout', async () => {
    await until('reads on the replica', readyz, (r) => r.reads === 'replica');
    await replica`select pg_wal_replay_pause()`;
    try {
      const order = await newOrder();
      const left = Date.now();
      await until('reads on the primary', readyz, (r) => r.reads === 'primary');
      console.log(`[test:pg] replay paused: reads left the replica ${Date.now() - left} ms after a write it lacks`);
      const [{ n }] = await replica<[{ n: number }]>`select count(*)::int as n from orders where id = ${order.id}`;
      expect(n).toBe(0);
      const before = await ordersStatementsOnReplica();
      const listed = await get('/partner/orders');
      expect(listed.body.data?.map((o) => o.id)).toContain(order.id);
      expect(await ordersStatementsOnReplica()).toBe(before);
      expect(await readyz()).toEqual({ status: 'ready', reads: 'primary' });
    } finally {
      await replica`select pg_wal_replay_resume()`;
    }
    await until('reads on the replica again', readyz, (r) => r.reads === 'replica');
  });
});
