import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAllowlistEntry } from '@/server/allowlist/edit';
import { cliContext } from '@/server/cli/operator-context';
import { revokeCredential } from '@/server/credentials/revoke';
import { call } from '../support/partner-api';
import { msUntil } from '../support/poll';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';
import { seedQuote, spawnServer, type ServerProcess } from '../support/processes';

// Revocations and allowlist edits made by an operator reach every web process within 5 s, even
// though each process caches verified credentials (and their allowlist) for a few seconds.

let svc: TestService;
let servers: ServerProcess[] = [];
const PROPAGATION_LIMIT_MS = 5000;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  servers = await Promise.all([spawnServer(svc.databaseUrl), spawnServer(svc.databaseUrl)]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function status(server: ServerProcess, path: string, partner: TestPartner): Promise<{ status: number; code?: string }> {
  const res = await call('GET', path, { ...partner, baseUrl: server.url }, undefined, { timeoutMs: 5000 });
  return { status: res.status, code: res.body.error?.code };
}

/** A partner whose key is known (cached) in both processes: each has just served it a 200. */
async function cachedEverywhere(): Promise<{ partner: TestPartner; path: string }> {
  const partner = await createTestPartner(svc);
  const path = `/partner/quotes/${await seedQuote(svc, partner)}`;
  for (const server of servers) expect((await status(server, path, partner)).status).toBe(200);
  return { partner, path };
}

/** Polls every process in parallel until `done` holds for its responses; returns the time each took. */
function propagation(path: string, partner: TestPartner, done: (r: { status: number; code?: string }) => boolean): Promise<number[]> {
  return Promise.all(
    servers.map((server, i) =>
      msUntil(`the change to reach process ${i}`, async () => done(await status(server, path, partner)), {
        timeoutMs: PROPAGATION_LIMIT_MS,
        intervalMs: 25,
      }),
    ),
  );
}

describe('revocation and allowlist edits across processes', () => {
  it('a revoked key stops working on every process within 5 s', async () => {
    const { partner, path } = await cachedEverywhere();
    await revokeCredential({ ctx: cliContext(svc.rt, 'test'), input: { clientId: partner.clientId } });
    const took = await propagation(path, partner, (r) => r.status === 401 && r.code === 'invalid_credentials');
    console.info(
      `[revocation] revoked key refused after ${took.map((ms) => ms.toFixed(0)).join(' ms / ')} ms (CREDENTIAL_CACHE_TTL_MS ${svc.env.CREDENTIAL_CACHE_TTL_MS})`,
    );
    for (const ms of took) expect(ms).toBeLessThan(PROPAGATION_LIMIT_MS);
    // And it stays refused.
    for (const server of servers) expect((await status(server, path, partner)).status).toBe(401);
  });

  it('an allowlist entry added after the key was cached refuses outside addresses on every process within 5 s', async () => {
    const { partner, path } = await cachedEverywhere();
    // TEST-NET-3: the test's loopback address is outside it.
    await addAllowlistEntry({
      ctx: cliContext(svc.rt, 'test'),
      input: { partnerId: partner.partnerId, cidr: '203.0.113.0/24', label: 'partner egress' },
    });
    const took = await propagation(path, partner, (r) => r.status === 403 && r.code === 'ip_not_allowed');
    console.info(`[revocation] allowlist entry enforced after ${took.map((ms) => ms.toFixed(0)).join(' ms / ')} ms`);
    for (const ms of took) expect(ms).toBeLessThan(PROPAGATION_LIMIT_MS);
    for (const server of servers) expect((await status(server, path, partner)).status).toBe(403);
  });
});
