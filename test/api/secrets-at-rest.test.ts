import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectStatus } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// No secret rests in plain text anywhere in the database: after webhook secrets are created and
// rotated, with and without an Idempotency-Key (whose stored answer carries the secret), every row
// of every table, the job queue's included, is read as text and searched for them.

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
});

/** Every row of every table of the service's schemas, as text. */
async function dumpEverything(): Promise<string> {
  const tables = await svc.rt.db.execute<{ schema: string; name: string }>(
    sql`select table_schema as schema, table_name as name from information_schema.tables where table_schema in ('public', 'pgboss', 'drizzle') and table_type = 'BASE TABLE'`,
  );
  expect(tables.length).toBeGreaterThan(10);
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await svc.rt.db.execute(sql.raw(`select t::text as row from "${t.schema}"."${t.name}" t`));
    parts.push(...rows.map((r) => String((r as { row: string }).row)));
  }
  return parts.join('\n');
}

describe('webhook secrets at rest', () => {
  it('are nowhere in plain text after create and rotate, with and without Idempotency-Key; a retry of the same key still answers', async () => {
    const api = clientFor(partner);
    const create = () =>
      api.POST('/partner/webhooks', {
        params: { header: { 'Idempotency-Key': 'create-1' } },
        body: { url: 'https://localhost:9443/hooks' },
      });
    const created = expectStatus(201, await create());
    const rotate = (key?: string) =>
      api.POST('/partner/webhooks/{id}/rotate-secret', {
        params: { path: { id: created.id }, header: key ? { 'Idempotency-Key': key } : {} },
      });
    const rotated = expectStatus(200, await rotate('rotate-1'));
    const again = expectStatus(200, await rotate());
    const secrets = [created.secret, rotated.secret, again.secret];
    for (const s of secrets) expect(s).toMatch(/^whsec_/);

    const everything = await dumpEverything();
    for (const s of secrets) {
      expect(everything).not.toContain(s);
      // Nor its base64 body, nor as JSON would escape it.
      expect(everything).not.toContain(s.slice('whsec_'.length));
      expect(everything).not.toContain(JSON.stringify(s).slice(1, -1));
    }
    expect(everything).not.toMatch(/whsec_[A-Za-z0-9+/]{20}/);

    // The stored answers are sealed, not dropped: the same key answers as the first time (decided in
    // docs/guides/idempotency.md: a client that lost the first answer must not be left with a secret it never saw).
    const replay = await create();
    expect(expectStatus(201, replay)).toEqual(created);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
  });
});
