import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor } from '@/server/context';
import { createPartner } from '@/server/partners/create';
import { createWebhook } from '@/server/webhooks/create';
import { captureLogs } from '../support/logs';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';

// Issue 21 item 3: a GraphQL operation has GRAPHQL_TIMEOUT_MS, and past it the database stops working
// for it too. A statement is made to wait by a lock another connection holds: without cancellation it
// would wait (and hold its pool connection) until the lock is released, long after the answer.

const LIMIT_MS = 800;
let svc: TestService;
let support: TestOperator;
let other: postgres.Sql;
const logs = captureLogs('info');

beforeAll(async () => {
  svc = await startTestService(
    { WORKERS: 'off', GRAPHQL_TIMEOUT_MS: String(LIMIT_MS) },
    { log: logs.log, resolver: async () => ['93.184.215.14'] },
  );
  support = await createTestOperator(svc, 'support');
  other = postgres(svc.databaseUrl, { max: 2, onnotice: () => {} });
});
afterAll(() => other?.end());

/** Holds an ACCESS EXCLUSIVE lock on `table` until the returned release() is called. */
async function holdLock(table: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = other.begin(async (tx) => {
    await tx.unsafe(`lock table ${table} in access exclusive mode`);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await holder;
  };
}

/** The service's statements still running (or waiting for a lock) that read `table`. */
const runningOn = async (table: string) =>
  (
    await other`select query from pg_stat_activity
      where datname = current_database() and application_name like 'partner-delivery%' and state = 'active'
        and pid <> pg_backend_pid() and query ilike ${`%${table}%`}`
  ).map((r) => r.query as string);

describe('GRAPHQL_TIMEOUT_MS', () => {
  it('answers 503 operation_timeout, and the statement it started no longer runs in the database', async () => {
    const release = await holdLock('webhook_attempts');
    try {
      const started = performance.now();
      const reply = await gql(support, '{ overview(windowMinutes: 60) { attempts } }');
      console.log(
        `overview behind a lock answered ${reply.status} in ${(performance.now() - started).toFixed(0)} ms (limit ${LIMIT_MS} ms)`,
      );
      expect(reply.status).toBe(503);
      expect(reply.errors?.map((e) => e.extensions?.code)).toEqual(['operation_timeout']);
      expect(JSON.stringify(reply.errors)).not.toMatch(/select|webhook_attempts|at .*\.ts/i);
      // The lock is still held: only a cancelled statement has left pg_stat_activity.
      await waitFor('the cancelled statement to leave pg_stat_activity', () => runningOn('webhook_attempts'), {
        until: (q) => q.length === 0,
        timeoutMs: 3000,
      });
    } finally {
      await release();
    }
    const logged = logs.entries();
    expect(logged.some((e) => e.msg === 'graphql operation timed out' && e.level === 40)).toBe(true);
    expect(logged.filter((e) => Number(e.level) >= 50)).toEqual([]);
    // The process goes on answering, and its pool is whole.
    expect((await gqlData(support, '{ overview(windowMinutes: 60) { attempts } }')).overview.attempts).toBe(0);
  });

  it('rolls a timed-out mutation back whole', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const partner = await createPartner({ ctx, input: { name: 'Slow Audit' } });
    const hook = await createWebhook({
      ctx: actingFor(ctx, { partnerId: partner.id, environment: 'sandbox' }),
      input: { url: 'https://hooks.example.com/slow' },
    });
    const audits = async () => (await other`select count(*)::int as n from audit_log where target_id = ${hook.id}`)[0]!.n as number;
    const auditsBefore = await audits();
    // setSubscriptionStatus updates the subscription, then writes the audit log, which waits for the lock.
    const release = await holdLock('audit_log');
    let reply;
    try {
      reply = await gql(support, 'mutation($id: ID!) { setSubscriptionStatus(id: $id, status: disabled) { status } }', { id: hook.id });
      await waitFor('the cancelled insert to leave pg_stat_activity', () => runningOn('audit_log'), {
        until: (q) => q.length === 0,
        timeoutMs: 3000,
      });
    } finally {
      await release();
    }
    expect(reply.status).toBe(503);
    expect(reply.errors?.[0]?.extensions?.code).toBe('operation_timeout');
    const [row] = await other`select status from webhook_subscriptions where id = ${hook.id}`;
    expect(row!.status).toBe('enabled');
    expect(await audits()).toBe(auditsBefore);
  });
});
