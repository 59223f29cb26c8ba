import postgres from 'postgres';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database';
import { createTestOperator, gqlData, type TestOperator } from '../support/operator-api';
import { clientFor, expectStatus, getOrder, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { findSamples, parsePrometheus } from '../support/prometheus';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DATABASE_READ_URL on the embedded Postgres, with a second database standing in for the replica: an
// empty copy of the migrated template, which no write reaches. What a list shows then says where it
// read: nothing from the stand-in, the partner's orders from the primary. (A real streaming replica of
// PostgreSQL 15 is test/pg/read-replica.test.ts, run by .ci/run.)

let svc: TestService;
let partner: TestPartner;
let operator: TestOperator;
let standIn: string;
const readStatements: string[] = [];

beforeAll(async () => {
  standIn = await createTestDatabase();
  svc = await startTestService({ DATABASE_READ_URL: standIn }, { onReadQuery: (query) => readStatements.push(query) });
  partner = await createTestPartner(svc);
  operator = await createTestOperator(svc);
});

const listOrders = async () => expectStatus(200, await clientFor(partner).GET('/partner/orders'));
const readyz = async () => (await fetch(`${svc.url}/readyz`)).json() as Promise<{ status: string; reads?: string }>;

describe('DATABASE_READ_URL (a second database standing in for the replica)', () => {
  it('lists read the read database; a write, and a read of what a request just made, read the primary', async () => {
    expect(await readyz()).toEqual({ status: 'ready', reads: 'replica' });
    readStatements.length = 0;
    const order = await newOrder(partner);

    // The partner's own new order, by id: on the primary.
    expect((await getOrder(partner, order.id)).id).toBe(order.id);
    // Writes and their reads never touched the read pool.
    expect(readStatements).toEqual([]);

    // The lists: on the stand-in, where the order never arrives.
    expect((await listOrders()).data).toEqual([]);
    const events = await clientFor(partner).GET('/partner/events', { params: { query: { order_id: order.id } } });
    expect(expectStatus(200, events).data).toEqual([]);
    expect(readStatements.some((q) => /from "orders"/.test(q))).toBe(true);
    expect(readStatements.some((q) => /from "events"/.test(q))).toBe(true);

    // The console: the orders page reads the stand-in; an order opened by id, with its timeline, the primary.
    const page = await gqlData(operator, `{ orders(first: 10) { nodes { id } } }`);
    expect(page.orders.nodes).toEqual([]);
    const opened = await gqlData(operator, `query($id: ID!) { order(id: $id) { id events(first: 10) { nodes { type } } } }`, {
      id: order.id,
    });
    expect(opened.order).toEqual({ id: order.id, events: { nodes: [{ type: 'order.created' }] } });
  });

  it('shows the read pools in the pool metrics, and the replica in use', async () => {
    const samples = parsePrometheus(await (await fetch(`${svc.url}/metrics`)).text());
    const pools = findSamples(samples, 'pdp_db_pool_connections', { state: 'max' });
    expect(Object.fromEntries(pools.map((s) => [s.labels.pool, s.value]))).toEqual({
      primary: svc.env.DB_POOL_MAX,
      graphql: svc.env.GRAPHQL_DB_POOL_MAX,
      read: svc.env.DB_POOL_MAX,
      graphql_read: svc.env.GRAPHQL_DB_POOL_MAX,
    });
    expect(findSamples(samples, 'pdp_db_reads_on_replica')[0]?.value).toBe(1);
    // Not a replica (not replaying WAL): as fresh as it gets.
    expect(findSamples(samples, 'pdp_db_read_replica_lag_seconds')[0]?.value).toBe(0);
  });

  it('reads the primary while the read database refuses connections, and goes back once it answers; ready throughout', async () => {
    const name = new URL(standIn).pathname.slice(1);
    const admin = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`alter database "${name}" allow_connections false`);
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name}`;
      await waitFor('reads on the primary', readyz, { until: (r) => r.reads === 'primary', timeoutMs: 5000 });
      expect((await listOrders()).data).toHaveLength(1);
      const page = await gqlData(operator, `{ orders(first: 10) { nodes { id } } }`);
      expect(page.orders.nodes).toHaveLength(1);
      expect(await readyz()).toEqual({ status: 'ready', reads: 'primary' });
    } finally {
      await admin.unsafe(`alter database "${name}" allow_connections true`);
      await admin.end();
    }
    await waitFor('reads on the replica again', readyz, { until: (r) => r.reads === 'replica', timeoutMs: 5000 });
    expect((await listOrders()).data).toEqual([]);
  });
});
