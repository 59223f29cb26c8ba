import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { setRateLimit } from '@/server/partners/set-rate-limit';
import { seedQuote, spawnServer, spawnWorker, type ServerProcess } from '../support/processes';
import { call } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { parsePrometheus, scrape, sumSamples } from '../support/prometheus';
import { startReceiver, type ReceivedRequest, type Responder } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The production layout in small: 2 web processes (WORKERS=off) and 2 worker processes (`npm run worker`) on one
// database. A paced burst of orders goes through both web processes; one worker is SIGKILLed mid-burst. The
// in-process service only seeds and reads the database.

const IN_FLIGHT_BOUND = 4;
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,2',
  WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: String(IN_FLIGHT_BOUND),
  // The killed worker's attempts come back once its claims (5 s) and its heartbeat (15 s) lapsed, plus a 1 s
  // sweep; its pg-boss jobs within 60 s.
  WEBHOOK_CLAIM_SECONDS: '5',
  WEBHOOK_SWEEP_INTERVAL_MS: '1000',
};

let svc: TestService;
let webs: ServerProcess[] = [];
let workers: ServerProcess[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const responders = new Map<string, Responder>();

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = await startReceiver((req, i) => (responders.get(req.path) ?? (() => ({ status: 200 })))(req, i));
  [webs, workers] = await Promise.all([
    Promise.all([spawnServer(svc.databaseUrl, ENV), spawnServer(svc.databaseUrl, ENV)]),
    Promise.all([spawnWorker(svc.databaseUrl, ENV), spawnWorker(svc.databaseUrl, ENV)]),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([...webs, ...workers].map((p) => p.stop()));
  await receiver.close();
});

const eventIdOf = (r: ReceivedRequest) => r.headers['x-service-event-id']!;
const bodyIdOf = (r: ReceivedRequest) => (JSON.parse(r.rawBody.toString()) as { id: string }).id;
const orderIdOf = (r: ReceivedRequest) => (JSON.parse(r.rawBody.toString()) as { data: { object: { id: string } } }).data.object.id;
const outputOf = () => [...webs, ...workers].map((p) => p.output.join('')).join('\n');

/** Counts the requests open at the receiver on `path` (each answered after `delayMs`), and their peak. */
function concurrencyGauge() {
  const gauge = { open: 0, peak: 0 };
  const respond = (status: number, delayMs: number) => {
    gauge.open++;
    gauge.peak = Math.max(gauge.peak, gauge.open);
    setTimeout(() => gauge.open--, delayMs);
    return { status, delayMs };
  };
  return { gauge, respond };
}

async function subscribe(partner: TestPartner, path: string, respond: Responder): Promise<string> {
  responders.set(path, respond);
  const created = await call(
    'POST',
    '/partner/webhooks',
    { ...partner, baseUrl: webs[0]!.url },
    { url: `https://localhost:${receiver.port}${path}` },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

interface Sent {
  server: number;
  status: number;
  orderId?: string;
}

/** `perTick` orders every `tickMs` for `ticks` ticks, alternating between the web processes; `at(ms)` runs once past `ms`. */
async function pacedOrders(
  partner: TestPartner,
  quotes: string[],
  perTick: number,
  ticks: number,
  tickMs: number,
  at: [number, () => void],
) {
  const pending: Promise<Sent>[] = [];
  const started = performance.now();
  let fired = false;
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < perTick; i++) {
      const n = pending.length;
      const server = n % webs.length;
      pending.push(
        call('POST', '/partner/orders', { ...partner, baseUrl: webs[server]!.url }, { quote_id: quotes[n] }, { timeoutMs: 15_000 }).then(
          (res) => ({ server, status: res.status, orderId: res.status === 201 ? (res.body.id as string) : undefined }),
        ),
      );
    }
    if (!fired && performance.now() - started >= at[0]) {
      fired = true;
      at[1]();
    }
    const wait = started + (tick + 1) * tickMs - performance.now();
    // Pacing, not waiting for a condition: the next tick's requests leave on schedule.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const sent = await Promise.all(pending);
  // Until the last answer, not the last send: a loaded server admits the last requests later, and the
  // bucket refills meanwhile (the full suite once admitted 341 against a bound of 337 counted to the last send).
  return { sent, elapsedMs: performance.now() - started };
}

describe('2 web + 2 worker processes on one database', () => {
  it('hold the rate limit across the web tier and the in-flight bound across workers; a SIGKILLed worker loses nothing', async () => {
    // Each worker counts the other's heartbeat (every 5 s) before the burst, so each takes half the bound.
    await waitFor(
      'two live workers on record',
      async () => (await svc.rt.db.execute(sql`select 1 from worker_heartbeats where beat_at > now() - interval '15 seconds'`)).length >= 2,
      { timeoutMs: 15_000, intervalMs: 200, context: outputOf },
    );
    await settle(5500, "one more heartbeat each, so both workers count the other's before any delivery");

    const partner = await createTestPartner(svc);
    const rate = 50;
    const { burst } = await setRateLimit({ ctx: cliContext(svc.rt, 'test'), input: { partnerId: partner.partnerId, perSecond: rate } });
    const paced = concurrencyGauge();
    const sub = {
      // Slow enough that the in-flight bound is what limits throughput.
      paced: await subscribe(partner, '/many/paced', () => paced.respond(200, 60)),
      // Every third event's first attempt fails: its retry must carry the same event id.
      flaky: await subscribe(
        partner,
        '/many/flaky',
        (() => {
          const seen = new Map<string, number>();
          return (req) => {
            const id = eventIdOf(req);
            const n = (seen.get(id) ?? 0) + 1;
            seen.set(id, n);
            return { status: n === 1 && seen.size % 3 === 0 ? 503 : 200, delayMs: 5 };
          };
        })(),
      ),
    };

    // Offered: 100 orders/s for 4 s, twice the rate; quotes made beforehand through the domain spend no tokens.
    const perTick = 5;
    const ticks = 80;
    const quotes: string[] = [];
    while (quotes.length < perTick * ticks) quotes.push(...(await Promise.all(Array.from({ length: 50 }, () => seedQuote(svc, partner)))));
    let killed: Promise<void> | undefined;
    const { sent, elapsedMs } = await pacedOrders(partner, quotes, perTick, ticks, 50, [1500, () => (killed = workers[1]!.kill())]);
    await killed;

    // The rate limit, across both web processes: within the tolerance of rate/10 per process (docs/guides/rate-limits.md).
    const admitted = sent.filter((s) => s.status === 201);
    const limited = sent.filter((s) => s.status === 429);
    expect(sent.filter((s) => s.status !== 201 && s.status !== 429)).toEqual([]);
    const bound = burst + rate * (elapsedMs / 1000) + (rate / 10) * webs.length;
    const perServer = webs.map((_, i) => admitted.filter((s) => s.server === i).length);
    expect(admitted.length).toBeLessThanOrEqual(bound);
    expect(admitted.length).toBeGreaterThanOrEqual(burst);
    for (const n of perServer) expect(n).toBeGreaterThanOrEqual(burst / 4);
    const orderIds = new Set(admitted.map((s) => s.orderId!));

    // Every admitted order reaches both subscriptions, though one worker died holding jobs and attempts.
    const deliveredAt = (path: string) => receiver.received.filter((r) => r.path === path && r.status !== undefined && r.status < 300);
    const startedWaiting = performance.now();
    await waitFor(
      'every order delivered to both subscriptions',
      () => ['/many/paced', '/many/flaky'].every((p) => new Set(deliveredAt(p).map(orderIdOf)).size === orderIds.size),
      { timeoutMs: 90_000, intervalMs: 250, context: outputOf },
    );
    const recoveredMs = performance.now() - startedWaiting;
    const rows = await waitFor(
      'every delivery recorded',
      () =>
        svc.rt.db.execute<{ subscription_id: string; status: string; attempts: number; recorded: number; succeeded: number }>(sql`
          select d.subscription_id, d.status, d.attempts,
            (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as recorded,
            (select count(*)::int from webhook_attempts a where a.delivery_id = d.id and a.response_status between 200 and 299) as succeeded
          from webhook_deliveries d where d.subscription_id in (${sub.paced}, ${sub.flaky})`),
      { until: (rows) => rows.length === orderIds.size * 2 && rows.every((r) => r.status === 'succeeded'), timeoutMs: 20_000 },
    );
    // Exactly once on record: one delivery per event and subscription, one successful attempt each.
    expect(rows.filter((r) => r.succeeded !== 1 || r.recorded !== r.attempts)).toEqual([]);

    const duplicates: Record<string, number> = {};
    for (const path of ['/many/paced', '/many/flaky']) {
      const got = receiver.received.filter((r) => r.path === path);
      // The same event id in the header and the body on every attempt, retries included.
      for (const r of got) expect(bodyIdOf(r)).toBe(eventIdOf(r));
      expect(new Set(got.map(orderIdOf))).toEqual(orderIds);
      const byEvent = new Map<string, ReceivedRequest[]>();
      for (const r of got) byEvent.set(eventIdOf(r), [...(byEvent.get(eventIdOf(r)) ?? []), r]);
      expect(byEvent.size).toBe(orderIds.size);
      // Each event's attempts carry one payload, byte for byte.
      for (const attempts of byEvent.values()) expect(new Set(attempts.map((r) => r.rawBody.toString())).size).toBe(1);
      // At least once on the wire: only what the killed worker had sent and not yet recorded arrives twice.
      duplicates[path] = [...byEvent.values()].filter((attempts) => attempts.filter((r) => r.status! < 300).length > 1).length;
    }
    const retried = rows.filter((r) => r.subscription_id === sub.flaky && r.attempts > 1).length;
    expect(retried).toBeGreaterThan(0);
    // At most twice its share of the bound (2 of 4): what it had in flight, and as many finished and awaiting their record.
    for (const n of Object.values(duplicates)) expect(n).toBeLessThanOrEqual(IN_FLIGHT_BOUND);

    // The in-flight bound, across both workers (and the survivor alone after the kill).
    expect(paced.gauge.peak).toBeLessThanOrEqual(IN_FLIGHT_BOUND);
    expect(paced.gauge.peak).toBeGreaterThanOrEqual(2);

    // Each web process counts its own requests; summed, they are every answer the burst got.
    const scraped = await Promise.all(webs.map(async (w) => parsePrometheus((await scrape(`${w.url}/metrics`)).text)));
    const answered = (statusClass: string) =>
      scraped.reduce((n, s) => n + sumSamples(s, 'pdp_http_requests_total', { route: '/partner/orders', status_class: statusClass }), 0);
    expect(answered('2xx')).toBe(admitted.length);
    expect(answered('4xx')).toBe(limited.length);

    console.log(
      `[many-processes] 2 web + 2 workers: ${sent.length} orders offered in ${elapsedMs.toFixed(0)} ms at ${rate}/s (burst ${burst}): ` +
        `admitted ${admitted.length} (${perServer.join(' + ')}), bound ${bound.toFixed(1)}, 429s ${limited.length}; ` +
        `worker 2 SIGKILLed at 1.5 s; all ${orderIds.size * 2} deliveries made ${recoveredMs.toFixed(0)} ms after the burst, ` +
        `${retried} retried with the same id, duplicates on the wire ${JSON.stringify(duplicates)}, peak in flight ${paced.gauge.peak} (bound ${IN_FLIGHT_BOUND})`,
    );
  }, 240_000);
});
