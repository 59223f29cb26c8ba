import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@/db/migrate';
import { loadEnv } from '@/server/config/env';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
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
});
