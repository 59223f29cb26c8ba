import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { setRateLimit } from '@/server/partners/set-rate-limit';
import { call } from '../support/partner-api';
import { msUntil } from '../support/poll';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';
import { seedQuote, spawnServer, type ServerProcess } from '../support/processes';

// The rate limit is per credential and shared by every web process through Postgres. Two real
// server processes (`node --import tsx server/boot/web.ts`) share one database; the test counts what they admit.

let svc: TestService;
let servers: ServerProcess[] = [];

beforeAll(async () => {
  // In-process service: a runtime for the domain verbs (partners, credentials, limits) on the same database.
  svc = await startTestService({ WORKERS: 'off' });
  servers = await Promise.all([spawnServer(svc.databaseUrl), spawnServer(svc.databaseUrl)]);
  // Test-only instrumentation: every lease is one insert-or-update of a bucket row; log each one.
  await svc.rt.db.execute(
    sql.raw(`
    create table test_rate_leases (client_id text not null, at timestamptz not null default clock_timestamp());
    create function test_log_lease() returns trigger language plpgsql as $$
      begin insert into test_rate_leases (client_id) values (new.client_id); return new; end $$;
    create trigger test_log_lease after insert or update on rate_limit_buckets for each row execute function test_log_lease();
  `),
  );
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

interface Sample {
  server: number;
  status: number;
  headers: Headers;
  body?: { error?: { type?: string; code?: string; request_id?: string } };
}

async function get(server: number, path: string, partner: TestPartner): Promise<Sample> {
  const res = await call('GET', path, { ...partner, baseUrl: servers[server]!.url }, undefined, { timeoutMs: 10_000 });
  return { server, status: res.status, headers: res.headers, body: res.status === 200 ? undefined : res.body };
}

/**
 * `concurrency` loops, each sending back-to-back requests alternating between the two servers, for
 * `durationMs` or until `total` requests were sent.
 */
async function hammer(path: string, partner: TestPartner, concurrency: number, stop: { durationMs?: number; total?: number }) {
  const samples: Sample[] = [];
  let next = 0;
  const started = performance.now();
  const more = () =>
    (stop.durationMs === undefined || performance.now() - started < stop.durationMs) && (stop.total === undefined || next < stop.total);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) samples.push(await get(next++ % servers.length, path, partner));
    }),
  );
  return { samples, elapsedMs: performance.now() - started };
}

/** `perTick` requests every `tickMs` (a steady offered load, not as fast as possible), to one server. */
async function paced(server: number, path: string, partner: TestPartner, perTick: number, ticks: number, tickMs: number) {
  const pending: Promise<Sample>[] = [];
  const started = performance.now();
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < perTick; i++) pending.push(get(server, path, partner));
    const wait = started + (tick + 1) * tickMs - performance.now();
    // Pacing, not waiting for a condition: the next tick's requests leave on schedule.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const samples = await Promise.all(pending);
  return { samples, elapsedMs: performance.now() - started };
}

async function leases(clientId: string): Promise<number> {
  const [row] = await svc.rt.db.execute<{ n: number }>(sql`select count(*)::int as n from test_rate_leases where client_id = ${clientId}`);
  return row!.n;
}

const isInt = (v: string | null) => v !== null && /^\d+$/.test(v);

function expectRateLimitHeaders(s: Sample, limit: number): void {
  expect(s.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(isInt(s.headers.get('ratelimit-remaining'))).toBe(true);
  expect(isInt(s.headers.get('ratelimit-reset'))).toBe(true);
}

function expectTooMany(s: Sample): void {
  expect(s.status).toBe(429);
  const retryAfter = s.headers.get('retry-after');
  expect(isInt(retryAfter)).toBe(true);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(s.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  expect(s.headers.get('ratelimit-remaining')).toBe('0');
  expect(s.headers.get('content-type')).toMatch(/^application\/json/);
  expect(s.body).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limited', request_id: expect.stringMatching(/^req_/) } });
}

describe('rate limit across processes', () => {
  it('two processes together admit no more than the shared bucket grants', async () => {
    const partner = await createTestPartner(svc);
    const rate = 10;
    const limits = await setRateLimit({ ctx: cliContext(svc.rt, 'test'), input: { partnerId: partner.partnerId, perSecond: rate } });
    const burst = limits.burst;
    expect(burst).toBe(20);
    const batch = Math.max(1, Math.floor(rate / 10));
    const quoteId = await seedQuote(svc, partner);

    const { samples, elapsedMs } = await hammer(`/partner/quotes/${quoteId}`, partner, 8, { durationMs: 3000 });
    const admitted = samples.filter((s) => s.status === 200);
    const limited = samples.filter((s) => s.status === 429);
    expect(admitted.length + limited.length).toBe(samples.length);

    // The bucket starts full at the first lease (after `hammer` started) and refills at `rate`.
    // Stated tolerance: one batch per process.
    const bound = burst + rate * (elapsedMs / 1000) + batch * servers.length;
    const perServer = servers.map((_, i) => admitted.filter((s) => s.server === i).length);
    console.info(
      `[rate-limit] ${rate}/s burst ${burst}, 2 processes, ${samples.length} requests in ${elapsedMs.toFixed(0)} ms: ` +
        `admitted ${admitted.length} (${perServer.join(' + ')}), bound ${bound.toFixed(1)}, 429s ${limited.length}, leases ${await leases(partner.clientId)}`,
    );
    expect(admitted.length).toBeLessThanOrEqual(bound);
    // The whole burst is usable, and both processes get a fair share of it.
    expect(admitted.length).toBeGreaterThanOrEqual(burst);
    for (const n of perServer) expect(n).toBeGreaterThanOrEqual(5);

    for (const s of samples) expectRateLimitHeaders(s, rate);
    for (const s of limited) expectTooMany(s);
  });

  it('leases tokens in batches instead of a database round trip per request', async () => {
    const partner = await createTestPartner(svc); // the default: 100/s, burst 200, so batches of 10
    const quoteId = await seedQuote(svc, partner);
    const { samples } = await hammer(`/partner/quotes/${quoteId}`, partner, 4, { total: 150 });
    const admitted = samples.filter((s) => s.status === 200).length;
    const batch = svc.env.RATE_LIMIT_PER_SECOND / 10;
    const n = await leases(partner.clientId);
    console.info(
      `[rate-limit] default limit: ${admitted} of ${samples.length} admitted across 2 processes with ${n} leases (batch ${batch})`,
    );
    // Under the burst: every request is admitted...
    expect(admitted).toBe(150);
    // ...with one upsert per batch, plus at most one partly spent batch per process.
    expect(n).toBeLessThanOrEqual(Math.ceil(admitted / batch) + servers.length);
    expect(n).toBeGreaterThanOrEqual(Math.ceil(admitted / batch));
  });

  it('a partner whose limit is raised sees no 429 at a rate the default refuses (one process)', async () => {
    const partner = await createTestPartner(svc);
    const quoteId = await seedQuote(svc, partner);
    const path = `/partner/quotes/${quoteId}`;
    // 30 requests every 100 ms for 2 s: 300/s offered, 600 in all. The default (100/s, burst 200)
    // admits at most ~400 of them.
    const before = await paced(0, path, partner, 30, 20, 100);
    const refused = before.samples.filter((s) => s.status === 429).length;
    expect(refused).toBeGreaterThan(100);
    for (const s of before.samples) expectRateLimitHeaders(s, svc.env.RATE_LIMIT_PER_SECOND);

    const raised = 1000;
    await setRateLimit({ ctx: cliContext(svc.rt, 'test'), input: { partnerId: partner.partnerId, perSecond: raised } });
    // The process learns the new limit when its cached credential expires (CREDENTIAL_CACHE_TTL_MS).
    const applied = await msUntil(
      'the raised limit to apply',
      async () => (await get(0, path, partner)).headers.get('ratelimit-limit') === String(raised),
      { timeoutMs: 5000 },
    );
    const leasesBefore = await leases(partner.clientId);

    const after = await paced(0, path, partner, 30, 20, 100);
    const statuses = [...new Set(after.samples.map((s) => s.status))];
    const leasesAfter = (await leases(partner.clientId)) - leasesBefore;
    console.info(
      `[rate-limit] one process, 300/s offered for 2 s: default limit refused ${refused} of ${before.samples.length}; ` +
        `raised to ${raised}/s (applied after ${applied.toFixed(0)} ms): statuses ${statuses.join(',')} in ${after.elapsedMs.toFixed(0)} ms, ${leasesAfter} leases`,
    );
    expect(statuses).toEqual([200]);
    for (const s of after.samples) expectRateLimitHeaders(s, raised);
    // Batches of 100: a handful of leases for 600 requests (tokens unspent after 1 s are dropped and re-leased).
    expect(leasesAfter).toBeLessThanOrEqual(Math.ceil(600 / (raised / 10)) + 4);
  });
});
