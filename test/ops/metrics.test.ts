import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type RunningProcess } from '@/server/boot/start-process';
import { loadEnv } from '@/server/config/env';
import { call, clientFor, expectStatus, newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { findSamples as find, parsePrometheus as parse, scrape, sumSamples as total } from '../support/prometheus';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, TEST_ENCRYPTION_KEY, type TestService } from '../support/service';

// GET /metrics after real traffic: every family the README lists, with plausible values, labels
// from fixed sets only; and who may read it (a bearer token, or loopback without a proxy).

let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1' });
  let seen = 0;
  // The first request fails, every later one succeeds: a retrying attempt, then a succeeded one.
  receiver = await startReceiver(() => ({ status: seen++ === 0 ? 500 : 200 }));
});
afterAll(() => receiver.close());

describe('GET /metrics on the web tier', () => {
  it('after partner requests and a delivered order: every family, plausible values, no id in any label', async () => {
    const partner = await createTestPartner(svc);
    const sub = await newSubscription(partner, { url: `https://localhost:${receiver.port}/hooks/metrics` });
    const order = await newOrder(partner);
    const api = clientFor(partner);
    expectStatus(200, await api.GET('/partner/orders/{id}', { params: { path: { id: order.id } } }));
    // Raw: an id that is not one, a path outside the document, no credentials.
    expect((await call('GET', '/partner/orders/ord_nope', partner)).status).toBe(404);
    expect((await call('GET', '/partner/no-such-route', partner)).status).toBe(404);
    expect((await call('GET', `/partner/orders/${order.id}`, { ...partner, headers: {} })).status).toBe(401);
    await waitFor(
      'the order webhook delivered after one retry',
      async () => {
        const list = expectStatus(200, await api.GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: sub.id } } }));
        return list.data.some((d) => d.status === 'succeeded');
      },
      { timeoutMs: 15_000 },
    );
    // The engine reports an attempt once its record is written, just after the API shows it.
    const metricsUrl = `${svc.url}/metrics`;
    await waitFor('the succeeded attempt counted', async () => {
      const s = parse((await scrape(metricsUrl)).text);
      return total(s, 'pdp_webhook_attempts_total', { result: 'succeeded', trigger: 'scheduled' }) >= 1;
    });
    // A replay of the last hour: the order's event(s) again, counted under trigger="replay".
    const replay = expectStatus(
      202,
      await api.POST('/partner/webhooks/{id}/replay', {
        params: { path: { id: sub.id } },
        body: { since: Math.floor(Date.now() / 1000) - 3600 },
      }),
    );
    const samples = await waitFor('the replayed attempts counted', async () => {
      const s = parse((await scrape(metricsUrl)).text);
      return total(s, 'pdp_webhook_attempts_total', { trigger: 'replay', result: 'succeeded' }) === replay.events_matched && s;
    });
    expect(replay.events_matched).toBeGreaterThanOrEqual(1);
    const first = await scrape(metricsUrl);
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/plain; version=0\.0\.4/);

    // HTTP: by route pattern, method and status class; unmatched paths are `other`.
    expect(total(samples, 'pdp_http_requests_total', { route: '/partner/orders/{id}', method: 'GET', status_class: '2xx' })).toBe(1);
    expect(total(samples, 'pdp_http_requests_total', { route: '/partner/orders/{id}', status_class: '4xx' })).toBe(2);
    expect(total(samples, 'pdp_http_requests_total', { route: '/partner/orders', method: 'POST', status_class: '2xx' })).toBe(1);
    expect(total(samples, 'pdp_http_requests_total', { route: 'other', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'pdp_http_request_duration_seconds_count', { route: '/partner/orders/{id}' })).toBe(3);
    expect(total(samples, 'pdp_http_request_duration_seconds_sum', { route: '/partner/orders/{id}' })).toBeGreaterThan(0);

    // Attempts and deliveries by outcome and error kind, their duration and lag.
    const replayed = replay.events_matched;
    expect(total(samples, 'pdp_webhook_attempts_total', { result: 'retrying', error_kind: 'http_status', trigger: 'scheduled' })).toBe(1);
    expect(total(samples, 'pdp_webhook_attempts_total', { result: 'succeeded', error_kind: 'none', trigger: 'scheduled' })).toBe(1);
    expect(total(samples, 'pdp_webhook_deliveries_total', { result: 'succeeded' })).toBe(1 + replayed);
    expect(total(samples, 'pdp_webhook_attempt_duration_seconds_count')).toBe(2 + replayed);
    expect(total(samples, 'pdp_webhook_attempt_duration_seconds_sum')).toBeGreaterThan(0);
    // Lag is measured for scheduled attempts only: the first and the retry, not the replayed ones.
    expect(total(samples, 'pdp_webhook_delivery_lag_seconds_count')).toBe(2);
    // The retry was due about a second after the first attempt; neither started minutes late.
    expect(total(samples, 'pdp_webhook_delivery_lag_seconds_bucket', { le: '30' })).toBe(2);
    // Claims renewed on time: nothing here stalls for half a claim (15 s).
    expect(find(samples, 'pdp_webhook_claim_renewals_late_total')).toEqual([expect.objectContaining({ value: 0 })]);

    // Queues (every pg-boss queue, read at scrape), replays, process metrics.
    const depth = find(samples, 'pdp_queue_depth');
    expect(depth.map((s) => s.labels.queue)).toEqual(expect.arrayContaining(['webhooks.fanout', 'webhooks.deliver']));
    for (const s of depth) expect(s.value).toBeGreaterThanOrEqual(0);
    for (const s of find(samples, 'pdp_queue_oldest_job_age_seconds')) expect(s.value).toBeGreaterThanOrEqual(0);
    expect(find(samples, 'pdp_queue_oldest_job_age_seconds')).toHaveLength(depth.length);
    expect(find(samples, 'pdp_replays_active', { status: 'running' })[0]?.value).toBe(0);
    expect(find(samples, 'pdp_replay_events', { stage: 'enqueued' })[0]?.value).toBe(0);
    // The retry's failure started a failing streak; the success ended it.
    expect(find(samples, 'pdp_webhook_subscriptions', { state: 'failing' })[0]?.value).toBe(0);
    expect(find(samples, 'pdp_webhook_subscriptions', { state: 'disabled' })[0]?.value).toBe(0);
    // The database pools: their sizes, the connections in use at the scrape (none now), nothing waiting; no
    // read pools and no replica gauges without DATABASE_READ_URL (test/api/read-replica.test.ts has them).
    expect(find(samples, 'pdp_db_pool_connections', { pool: 'primary', state: 'max' })[0]?.value).toBe(svc.env.DB_POOL_MAX);
    // The scrape above can land while the engine still finishes the replay (its status, the counts), so
    // "none in use" is read once that work is done: every connection goes back to the pool (CI caught 1).
    await waitFor('the primary pool idle again', async () => {
      const s = parse((await scrape(metricsUrl)).text);
      return find(s, 'pdp_db_pool_connections', { pool: 'primary', state: 'in_use' })[0]?.value === 0;
    });
    expect(find(samples, 'pdp_db_pool_connections', { pool: 'graphql', state: 'max' })[0]?.value).toBe(svc.env.GRAPHQL_DB_POOL_MAX);
    expect(find(samples, 'pdp_db_pool_connections', { state: 'max' }).map((s) => s.labels.pool)).toEqual(['primary', 'graphql']);
    expect(find(samples, 'pdp_db_pool_waiting', { pool: 'primary' })[0]?.value).toBe(0);
    expect(find(samples, 'pdp_db_reads_on_replica')).toEqual([]);
    expect(total(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(total(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    // Fixed label sets: nothing that names a partner, an order, a credential, a subscription or a URL.
    const ids = [partner.partnerId, partner.clientId, order.id, sub.id as string];
    for (const s of samples) {
      for (const value of Object.values(s.labels)) {
        expect(value, `${s.name} ${value}`).not.toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
        expect(value, `${s.name} ${value}`).not.toMatch(/ci_|:\/\/|localhost/);
        for (const id of ids) expect(value).not.toContain(id);
      }
    }
  });

  it('a loopback client is refused when a proxy forwarded it; no token is configured here', async () => {
    expect((await scrape(`${svc.url}/metrics`, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    expect((await scrape(`${svc.url}/metrics`, { forwarded: 'for=203.0.113.9' })).status).toBe(403);
  });

  // Needs an address of this host's other than loopback; a container without one skips it.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  it.runIf(external)('a client not on loopback is refused without a token', async () => {
    const port = new URL(svc.url).port;
    expect((await scrape(`http://${external}:${port}/metrics`)).status).toBe(403);
    expect((await scrape(`http://${external}:${port}/healthz`)).status).toBe(200);
  });
});

const TOKEN = 'metrics-token-for-tests-0123456789';

function envFor(databaseUrl: string, overrides: Record<string, string>) {
  return loadEnv({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '::',
    CONSOLE: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SEED_DEMO: 'false',
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...overrides,
  });
}

describe('with METRICS_TOKEN', () => {
  it('the web tier answers the bearer token only, from any client', async () => {
    const web = await startProcess(envFor(svc.databaseUrl, { METRICS_TOKEN: TOKEN }), { web: true, workers: false });
    try {
      const url = `${web.url}/metrics`;
      expect((await scrape(url)).status).toBe(403);
      expect((await scrape(url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(403);
      expect((await scrape(url, { authorization: TOKEN })).status).toBe(403);
      const ok = await scrape(url, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('pdp_http_requests_total');
    } finally {
      await web.stop();
    }
  });
});

describe('a worker-only process', () => {
  let worker: RunningProcess | undefined;
  afterAll(() => worker?.stop());

  it('serves /metrics on METRICS_PORT, on loopback without a token, and none without METRICS_PORT', async () => {
    const quiet = await startProcess(envFor(svc.databaseUrl, {}), { web: false, workers: true });
    expect(quiet.metricsUrl).toBeUndefined();
    await quiet.stop();

    worker = await startProcess(envFor(svc.databaseUrl, { METRICS_PORT: '0' }), { web: false, workers: true });
    expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await scrape(worker.metricsUrl!);
    expect(res.status).toBe(200);
    const samples = parse(res.text);
    for (const family of ['pdp_queue_depth', 'pdp_queue_oldest_job_age_seconds', 'pdp_replays_active', 'process_cpu_user_seconds_total']) {
      expect(find(samples, family).length, family).toBeGreaterThan(0);
    }
    expect(res.text).toContain('# TYPE pdp_webhook_attempts_total counter');
    expect((await scrape(worker.metricsUrl!, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    expect((await scrape(worker.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('with a token, listens on HOST and answers the bearer token only', async () => {
    const guarded = await startProcess(envFor(svc.databaseUrl, { METRICS_PORT: '0', METRICS_TOKEN: TOKEN }), { web: false, workers: true });
    try {
      const port = new URL(guarded.metricsUrl!).port;
      expect((await scrape(`http://localhost:${port}/metrics`)).status).toBe(403);
      expect((await scrape(`http://localhost:${port}/metrics`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });
});
