import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { runMigrations } from '@/db/migrate';
import { startBoss } from '@/jobs/boss';
import { createLogger } from '@/server/logger';
import { clientFor, expectStatus, newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestService } from '../support/service';

// Migration 0015 (history partitions) over a database holding history, as the release before it left it: 20 days
// of events (three or four weeks), their deliveries (one still retrying, one in flight) and attempts, and an event
// whose id lies far from its time. Every row must come through unchanged, in its week (or the default partition),
// and the engine must deliver over the converted tables.

const MIGRATIONS = path.resolve('db/migrations');
const MIGRATION = '0015_history_partitions';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const TABLES = ['events', 'webhook_deliveries', 'webhook_attempts'] as const;

let url: string;
let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const partnerId = ulid();
const subscriptionId = ulid();
const before: Record<string, { n: number; sum: string }> = {};
const after: Record<string, { n: number; sum: string }> = {};
const now = Date.now();
// 20 days, one event every 8 hours.
const times = Array.from({ length: 60 }, (_, i) => now - 20 * DAY + i * 8 * 3_600_000);
const eventIds = times.map((at) => ulid(at));
const stray = ulid(now + 90 * DAY);

function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdp-migrations-'));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at, `no migration ${tag}`).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return dir;
}

/** Each table's row count and a digest of every row (as jsonb: independent of the columns' order). */
async function digest(sql: postgres.Sql): Promise<Record<string, { n: number; sum: string }>> {
  const out: Record<string, { n: number; sum: string }> = {};
  for (const table of TABLES) {
    const [row] = await sql.unsafe<{ n: number; sum: string }[]>(
      `select count(*)::int as n, md5(coalesce(string_agg(to_jsonb(t)::text, ',' order by t.id), '')) as sum from ${table} t`,
    );
    out[table] = row!;
  }
  return out;
}

beforeAll(async () => {
  const admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgPrefix')}history_${Date.now().toString(36)}`;
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();

  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await migrate(drizzle(sql), { migrationsFolder: migrationsBefore(MIGRATION) });
  await sql`insert into partners (id, name) values (${partnerId}, 'Before partitions')`;
  await sql`insert into webhook_subscriptions (id, partner_id, environment, url, event_filters, status, secret_sealed, created_at, updated_at)
    values (${subscriptionId}, ${partnerId}, 'sandbox', 'https://localhost:9/hooks', '[]'::jsonb, 'enabled', 'sealed', now(), now())`;
  const rows = [...times.map((at, i) => ({ at, id: eventIds[i]! })), { at: now, id: stray }];
  for (const [i, { at, id }] of rows.entries()) {
    const envelope = {
      id,
      object: 'event',
      created: Math.floor(at / 1000),
      livemode: false,
      type: 'order.created',
      data: { object: { id } },
    };
    await sql`insert into events (id, partner_id, environment, type, object_id, envelope, previous_attributes, created_at)
      values (${id}, ${partnerId}, 'sandbox', 'order.created', ${id}, ${JSON.stringify(envelope)}::jsonb, ${i % 2 ? sql`'{"status":"x"}'::jsonb` : null}, ${iso(at)}::timestamptz)`;
    const delivery = ulid(at + 1000);
    const status = i === 3 ? 'pending' : i === 4 ? 'pending' : i % 7 === 0 ? 'failed' : 'succeeded';
    await sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, claimed_until, next_attempt_at,
        last_attempt_at, created_at, updated_at)
      values (${delivery}, ${id}, ${subscriptionId}, 'order.created', ${status}::webhook_delivery_status, 2,
        ${i === 4 ? iso(now + 60_000) : null}::timestamptz, ${i === 3 ? iso(now + 3_600_000) : null}::timestamptz, ${iso(at + 3000)}::timestamptz,
        ${iso(at + 1000)}::timestamptz, ${iso(at + 3000)}::timestamptz)`;
    for (const attempt of [1, 2]) {
      await sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, response_headers,
          response_body, error_kind, resolved_address)
        values (${ulid(at + 1000 + attempt * 1000)}, ${delivery}, ${attempt}, 'scheduled', ${iso(at + 1000 + attempt * 1000)}::timestamptz, 20 + ${i},
          ${attempt === 1 ? 500 : 200}, '{"x":"y"}'::jsonb, 'body', ${attempt === 1 ? 'http_status' : null}, '127.0.0.1')`;
    }
  }
  Object.assign(before, await digest(sql));
  await sql.end();

  await runMigrations(url);
  const check = postgres(url, { max: 1, onnotice: () => {} });
  Object.assign(after, await digest(check));
  await check.end();
  const boss = await startBoss({ databaseUrl: url, log: createLogger('silent'), supervise: false });
  await boss.stop({ graceful: false, wait: true });
  receiver = await startReceiver();
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { databaseUrl: url });
});
afterAll(() => receiver?.close());

describe('migration 0015 over a database holding history', () => {
  it('keeps every row as it was', async () => {
    expect(before.events!.n).toBe(61);
    expect(before.webhook_deliveries!.n).toBe(61);
    expect(before.webhook_attempts!.n).toBe(122);
    expect(after).toEqual(before);
  });

  it('puts each row in its week, and the stray one in the default partition', async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      for (const table of TABLES) {
        expect(await sql`select relkind from pg_class where relname = ${table}`).toEqual([{ relkind: 'p' }]);
      }
      const placed = await sql<{ part: string; n: number }[]>`
        select tableoid::regclass::text as part, count(*)::int as n from events group by 1 order by 1`;
      const weeks = placed.filter((p) => /^events_w\d{8}$/.test(p.part));
      expect(weeks.length).toBeGreaterThanOrEqual(3);
      expect(weeks.reduce((n, p) => n + p.n, 0)).toBe(60);
      expect(placed.find((p) => p.part === 'events_default')).toEqual({ part: 'events_default', n: 1 });
      expect(await sql`select tableoid::regclass::text as part from events where id = ${stray}`).toEqual([{ part: 'events_default' }]);
      // Deliveries follow their event's week; two weeks ahead are made.
      const [placement] = await sql<{ misplaced: number }[]>`
        select count(*)::int as misplaced from webhook_deliveries d join events e on e.id = d.event_id
        where replace(d.tableoid::regclass::text, 'webhook_deliveries_', '') <> replace(e.tableoid::regclass::text, 'events_', '')`;
      expect(placement!.misplaced).toBe(0);
      const ahead = await sql<{ relname: string }[]>`
        select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'webhook_attempts'::regclass`;
      expect(ahead.length).toBeGreaterThanOrEqual(weeks.length + 3);
      // The constraints kept their names and their work.
      const indexes = await sql<
        { indexname: string }[]
      >`select indexname from pg_indexes where tablename = 'webhook_deliveries' order by 1`;
      expect(indexes.map((i) => i.indexname)).toEqual([
        // 0022: the console's deliveries attempted and not succeeded (status classes 3xx, 4xx, 5xx).
        'webhook_deliveries_answered_unsettled_idx',
        'webhook_deliveries_claims_idx',
        'webhook_deliveries_event_subscription_idx',
        // 0019: the console's deliveries of one event type.
        'webhook_deliveries_event_type_idx',
        'webhook_deliveries_id_event_id_pk',
        'webhook_deliveries_pending_idx',
        'webhook_deliveries_replay_idx',
        'webhook_deliveries_subscription_idx',
        // 0022: a subscription's pending deliveries, for its health page.
        'webhook_deliveries_subscription_pending_idx',
        // 0016, made on the converted (partitioned) table: the console's deliveries not succeeded.
        'webhook_deliveries_unsettled_idx',
      ]);
      const [first] = await sql<{ event_id: string }[]>`select event_id from webhook_deliveries limit 1`;
      await expect(
        sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, created_at, updated_at)
          values (${ulid()}, ${first!.event_id}, ${subscriptionId}, 'order.created', 'pending', now(), now())`,
      ).rejects.toThrow(/webhook_deliveries_event_subscription_idx|duplicate key/);
    } finally {
      await sql.end();
    }
  });

  it('delivers over the converted tables: a new order reaches a subscriber, and its attempt is recorded', async () => {
    const partner = await createTestPartner(svc);
    const hook = await newSubscription(partner, { url: `https://localhost:${receiver.port}/hooks` });
    const order = await newOrder(partner);
    await waitFor('the order.created webhook', () => receiver.received.some((r) => r.rawBody.toString().includes(order.id)), {
      timeoutMs: 15_000,
      intervalMs: 50,
    });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await waitFor(
        'the delivery recorded',
        async () =>
          (
            await sql`select 1 from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
              where d.subscription_id = ${hook.id} and d.status = 'succeeded'`
          ).length === 1,
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      // The old history reads through the partner API as before.
      const owner = clientFor(await createTestPartner(svc, { partnerId }));
      expectStatus(200, await owner.GET('/partner/events/{id}', { params: { path: { id: eventIds[0]! } } }));
    } finally {
      await sql.end();
    }
  });
});
