import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/logs';
import { call, newOrder } from '../support/partner-api';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

// The database fails once on every table the partner API writes (injected with a trigger), while
// partners create, rotate and replay secrets. Whatever the error path logs, at any level, no line
// carries a statement's parameters, an API key, a signing secret (plain or sealed) or a password.

const TABLES = ['quotes', 'orders', 'events', 'webhook_subscriptions', 'idempotency_keys', 'audit_log'];
let svc: TestService;
let partner: TestPartner;
const logs = captureLogs('debug');

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'debug' }, { log: logs.log });
  await installFaults();
  partner = await createTestPartner(svc);
});

/**
 * A trigger on each table that fails the write whose turn is 1 on its sequence: none, until
 * failEachTableOnce restarts the sequences. Installed before any traffic: a trigger's DDL locks the whole
 * (partitioned) table, and made while workers read `events` it once deadlocked with one of them.
 */
async function installFaults(): Promise<void> {
  for (const table of TABLES) {
    await svc.rt.db.execute(sql.raw(`create sequence fault_${table}`));
    await svc.rt.db.execute(sql.raw(`select setval('fault_${table}', 1)`));
    await svc.rt.db.execute(
      sql.raw(`create function fault_${table}() returns trigger language plpgsql as $$
        begin
          if nextval('fault_${table}') = 1 then raise exception 'injected failover on ${table}' using errcode = '57P01'; end if;
          return new;
        end $$`),
    );
    await svc.rt.db.execute(
      sql.raw(`create trigger fault_${table} before insert or update on ${table} for each row execute function fault_${table}()`),
    );
  }
}

/** The next write to each table fails (a lock on its sequence only: the workers go on). */
async function failEachTableOnce(): Promise<void> {
  for (const table of TABLES) await svc.rt.db.execute(sql.raw(`alter sequence fault_${table} restart`));
}

describe('log lines on database errors', () => {
  it('never carry statement parameters, keys, secrets or passwords, on any write path', { timeout: 60_000 }, async () => {
    const seen: string[] = [partner.apiKey];
    const keyed = (key: string) => ({ ...partner, headers: { ...partner.headers, 'idempotency-key': key } });
    // Everything that holds a secret exists before the faults, so its values are in later statements' parameters.
    const sub = await call('POST', '/partner/webhooks', partner, { url: 'https://localhost:9443/a' });
    seen.push(sub.body.secret);
    const order = await newOrder(partner);

    await failEachTableOnce();
    const attempts: [string, string, unknown, string?][] = [
      ['POST', '/partner/quotes', NYC, 'q-1'],
      ['POST', '/partner/orders', { quote_id: 'x' }],
      ['POST', `/partner/orders/${order.id}/cancel`, { reason: 'fault' }, 'c-1'],
      ['POST', '/partner/webhooks', { url: 'https://localhost:9443/b' }, 'w-1'],
      ['POST', `/partner/webhooks/${sub.body.id}/rotate-secret`, {}, 'r-1'],
      ['PATCH', `/partner/webhooks/${sub.body.id}`, { description: 'fault' }],
      ['POST', `/partner/webhooks/${sub.body.id}/test`, {}, 't-1'],
    ];
    // Each twice: the first meets the fault, the second succeeds (and its secrets join the search).
    for (const [method, path, body, key] of attempts) {
      for (let i = 0; i < 2; i++) {
        const res = await call(method, path, key ? keyed(`${key}-${i}`) : partner, body);
        if (typeof res.body?.secret === 'string') seen.push(res.body.secret);
      }
    }
    await failEachTableOnce();
    for (const [method, path, body, key] of attempts) await call(method, path, key ? keyed(`${key}-again`) : partner, body);

    const sealed = await svc.rt.db.execute<{ s: string }>(sql`select secret_sealed as s from webhook_subscriptions`);
    const text = logs.lines.join('');
    const errorLines = logs.entries().filter((e) => (e.level as number) >= 40);
    console.log(`[log secrets] ${logs.lines.length} log lines, ${errorLines.length} at warn or worse, ${seen.length} secrets searched for`);
    expect(errorLines.length).toBeGreaterThanOrEqual(TABLES.length);
    expect(text, errorLines.map((e) => JSON.stringify(e)).join('\n')).toMatch(/injected failover/);
    expect(text).not.toMatch(/params:/);
    expect(text).not.toMatch(/whsec_|sk_sandbox_|sk_live_|scrypt\$/);
    for (const secret of [...seen, ...sealed.map((r) => r.s)]) expect(text).not.toContain(secret);
  });
});
