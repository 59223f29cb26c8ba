import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { runMigrations } from '@/db/migrate';
import { startBoss } from '@/jobs/boss';
import { createLogger } from '@/server/logger';
import { FIRST_VERSION, LATEST_VERSION } from '@/server/versions/registry';
import { clientFor, expectStatus } from '../support/partner-api';
import { createTestPartner, startTestService, type TestService } from '../support/service';

// Migration 0014 (versions) over a database that already holds a partner, a subscription, an order's event
// and its delivery, as the version before it left them: existing rows speak the first version, and the
// partner's environments are pinned to it at their next request, not to the latest.

const MIGRATIONS = path.resolve('db/migrations');
const VERSIONS_MIGRATION = '0014_api_versions';

let url: string;
let svc: TestService;
const partnerId = ulid();
const subscriptionId = ulid();
const eventId = ulid();
const orderId = ulid();
const history = [
  { status: 'created', at: 1_795_000_000 },
  { status: 'courier_assigned', at: 1_795_000_060 },
];
const envelope = {
  id: eventId,
  object: 'event',
  created: 1_795_000_060,
  livemode: false,
  type: 'order.courier_assigned',
  data: { object: { id: orderId, object: 'order', status: 'courier_assigned', status_history: history, updated: 1_795_000_060 } },
};

/** The migrations before the versions one, as a folder drizzle's migrator reads. */
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

beforeAll(async () => {
  const admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgPrefix')}migration_${Date.now().toString(36)}`;
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();

  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await migrate(drizzle(sql), { migrationsFolder: migrationsBefore(VERSIONS_MIGRATION) });
  await sql`insert into partners (id, name) values (${partnerId}, 'Before versions')`;
  await sql`insert into webhook_subscriptions (id, partner_id, environment, url, event_filters, status, secret_sealed, created_at, updated_at)
    values (${subscriptionId}, ${partnerId}, 'sandbox', 'https://localhost:4443/hooks', '[]'::jsonb, 'enabled', 'sealed', now(), now())`;
  await sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
    values (${eventId}, ${partnerId}, 'sandbox', ${envelope.type}, ${orderId}, ${JSON.stringify(envelope)}::text::jsonb, now())`;
  await sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at)
    values (${ulid()}, ${eventId}, ${subscriptionId}, ${envelope.type}, 'succeeded', 1, now(), now())`;
  await sql.end();

  await runMigrations(url);
  const boss = await startBoss({ databaseUrl: url, log: createLogger('silent'), supervise: false });
  await boss.stop({ graceful: false, wait: true });
  svc = await startTestService({ WORKERS: 'off', CREDENTIAL_CACHE_TTL_MS: '0' }, { databaseUrl: url });
});

describe('migration 0014 over an existing database', () => {
  it('leaves existing subscriptions and deliveries in the first version, and marks existing partners to pin it', async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select first_pin_version from partners where id = ${partnerId}`).toEqual([{ first_pin_version: FIRST_VERSION }]);
      expect(await sql`select api_version from webhook_subscriptions`).toEqual([{ api_version: FIRST_VERSION }]);
      expect(await sql`select api_version from webhook_deliveries`).toEqual([{ api_version: FIRST_VERSION }]);
      expect(await sql`select count(*)::int as n from api_version_pins`).toEqual([{ n: 0 }]);
    } finally {
      await sql.end();
    }
  });

  it("pins the existing partner's environment to the first version at its next request; its old event reads as before, and in the latest", async () => {
    const partner = await createTestPartner(svc, { partnerId });
    const pin = await clientFor(partner).GET('/partner/api-version');
    expect(expectStatus(200, pin)).toMatchObject({ version: FIRST_VERSION, previous_version: null });
    expect(pin.response.headers.get('x-service-version')).toBe(FIRST_VERSION);
    const read = (version?: string) => clientFor(partner, { version }).GET('/partner/events/{id}', { params: { path: { id: eventId } } });
    expect(expectStatus(200, await read())).toEqual(envelope);
    const latest = expectStatus(200, await read(LATEST_VERSION));
    // Written before previous_attributes were recorded: what its own history says of the state before it.
    expect(latest.data).toEqual({
      object: { id: orderId, object: 'order', status: 'courier_assigned', updated: 1_795_000_060 },
      previous_attributes: { status: 'created', updated: 1_795_000_000 },
    });
    const hooks = expectStatus(200, await clientFor(partner).GET('/partner/webhooks'));
    expect(hooks.data.map((h) => h.api_version)).toEqual([FIRST_VERSION]);
  });
});
