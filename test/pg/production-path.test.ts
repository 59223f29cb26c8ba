import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@/db/migrate';
import { loadEnv } from '@/server/config/env';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
import { ulid } from 'ulid';
import { jobContext } from '@/jobs/definition';
import { makeWeek } from '@/server/history/partitions';
import { retireHistory } from '@/server/history/retain';
import { createTestPartner, NYC, TEST_ENCRYPTION_KEY, type TestPartner } from '../support/service';

// The production path (`npm run test:pg`, run by .ci/run on Debian's PostgreSQL 15): migrations
// applied to a real server's database named by DATABASE_URL, the real service in-process over it,
// and one partner flow over real HTTP.

const databaseUrl = process.env.DATABASE_URL;
let service: RunningProcess | undefined;
let base: string;
let partner: TestPartner;

beforeAll(async () => {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: npm run test:pg runs against a Postgres server of yours');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ version }] = await sql<[{ version: string }]>`select version()`;
    console.log(`[test:pg] server: ${version}`);
    const u = new URL(databaseUrl);
    console.log(`[test:pg] database: ${u.pathname.slice(1)} on ${u.hostname}:${u.port || 5432}`);
  } finally {
    await sql.end();
  }
  await runMigrations(databaseUrl);
  const env = loadEnv({
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...process.env,
    PORT: '0',
    CONSOLE: 'off',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
  });
  service = await startProcess(env, { web: true, workers: env.WORKERS === 'on' });
  base = service.url!;
  partner = await createTestPartner(service);
});

afterAll(async () => {
  await service?.stop();
});

describe('production path on DATABASE_URL', () => {
  it('applied every migration', async () => {
    const sql = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const applied = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(applied[0]!.n).toBeGreaterThan(0);
      const tables = await sql`select to_regclass('public.partners') as partners, to_regclass('pgboss.job') as jobs`;
      expect(tables[0]).toEqual({ partners: 'partners', jobs: 'pgboss.job' });
    } finally {
      await sql.end();
    }
  });

  it("sends the service's statements without JIT, on a server that has it", async () => {
    // Debian's PostgreSQL 15 is built with LLVM: the console's 7-day health spent 1,383 ms of its 1,391 compiling (db/client.ts).
    const [row] = await service!.rt.db.execute<{ jit: string }>(sql`select current_setting('jit') as jit`);
    expect(row!.jit).toBe('off');
    // pg_jit_available() answers false where jit is off: asked on a session of the server's own defaults.
    const plain = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const [server] = await plain<[{ available: boolean }]>`select pg_jit_available() as available`;
      console.log(`[test:pg] JIT available on this server with its defaults: ${server.available}`);
    } finally {
      await plain.end();
    }
  });

  it('serves a partner flow over HTTP: quote created, read back, bad key refused, ready', async () => {
    const created = await fetch(`${base}/partner/quotes`, { method: 'POST', headers: partner.headers, body: JSON.stringify(NYC) });
    expect(created.status).toBe(201);
    const quote = (await created.json()) as { id: string; object: string; livemode: boolean };
    expect(quote).toMatchObject({ object: 'quote', livemode: false });

    const got = await fetch(`${base}/partner/quotes/${quote.id}`, { headers: partner.headers });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(quote);

    const badKey = await fetch(`${base}/partner/quotes/${quote.id}`, {
      headers: { ...partner.headers, 'x-api-key': `${partner.apiKey.slice(0, -4)}AAAA` },
    });
    expect(badKey.status).toBe(401);

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('partitions the history by week on this server: an order event lands in its week, and a week past retention is dropped whole', async () => {
    const quote = (await (
      await fetch(`${base}/partner/quotes`, { method: 'POST', headers: partner.headers, body: JSON.stringify(NYC) })
    ).json()) as {
      id: string;
    };
    const order = await fetch(`${base}/partner/orders`, {
      method: 'POST',
      headers: partner.headers,
      body: JSON.stringify({ quote_id: quote.id }),
    });
    expect(order.status).toBe(201);
    const { id: orderId } = (await order.json()) as { id: string };
    const sql = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const [event] = await sql<{ part: string }[]>`select tableoid::regclass::text as part from events where object_id = ${orderId}`;
      expect(event!.part).toMatch(/^events_w\d{8}$/);

      const ctx = jobContext(service!.rt, 'test.retention');
      const at = Date.now() - 60 * 86_400_000;
      const [week] = await makeWeek(ctx, new Date(at));
      const old = ulid(at);
      await sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
        values (${old}, ${partner.partnerId}, 'sandbox', 'order.created', ${old}, '{}'::jsonb, ${new Date(at).toISOString()}::timestamptz)`;
      const retired = await retireHistory({ ctx });
      expect(retired.dropped).toContain(week);
      expect(await sql`select 1 from events where id = ${old}`).toEqual([]);
    } finally {
      await sql.end();
    }
  });
});
