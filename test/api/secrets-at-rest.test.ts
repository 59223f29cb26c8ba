import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/partner-api';
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
    const withKey = (key: string) => ({ ...partner, headers: { ...partner.headers, 'idempotency-key': key } });
    const created = await call('POST', '/partner/webhooks', withKey('create-1'), { url: 'https://localhost:9443/hooks' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const rotated = await call('POST', `/partner/webhooks/${id}/rotate-secret`, withKey('rotate-1'), {});
    expect(rotated.status).toBe(200);
    const again = await call('POST', `/partner/webhooks/${id}/rotate-secret`, partner, {});
    expect(again.status).toBe(200);
    const secrets = [created.body.secret, rotated.body.secret, again.body.secret] as string[];
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
    const replay = await call('POST', '/partner/webhooks', withKey('create-1'), { url: 'https://localhost:9443/hooks' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created.body);
  });
});
