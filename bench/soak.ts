import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureLocalCa } from '@/server/boot/local-ca';
import { quoteThenOrder } from './api';
import { processTreeCpuMs } from './cpu';
import { openBenchDatabase } from './database';
import { trackDeliveries } from './delivery-tracker';
import { percentile, runLoad } from './load';
import { paceOrders } from './paced-orders';
import { benchClient, createBenchPartner, succeeded } from './partner';
import { startReceiver } from './receiver';
import { figure, type BenchContext, type Figure, type Scenario, type ScenarioOutcome } from './scenario';
import {
  quantileBetween,
  sampleTables,
  sampleScans,
  scrapeMetrics,
  serviceRss,
  type MetricsSample,
  type TableSample,
  type ScanSample,
} from './service-probes';
import { startService } from './sides';
import { seedAgedTables } from './soak-aged';
import { int, ms, ratio, table } from './table';

// Hours, not minutes: the service as `npm start` runs it, orders through the partner API at half the
// rate it sustains, for 30 minutes (--duration), every delivery checked at the HTTPS receiver. What a
// short scenario cannot show: throughput or latency decaying, memory creeping, tables bloating.

const SUBSCRIPTIONS = 10;
const DEFAULT_SECONDS = 1800;
// Six windows of 10 s: anything shorter says nothing about the trend.
const MIN_SECONDS = 60;
const MAX_WINDOW_SECONDS = 300;
// The sustained rate: a closed loop on --connections (50, as the orders scenario), which asks for more
// than the pipeline delivers (10 connections did not: on a quiet machine their deliveries kept up), after
// a short unmeasured one so that the service's first seconds (JIT, pools) are not in it.
const CALIBRATION_SECONDS = 15;
const WARM_UP_SECONDS = 5;
const WARM_UP_CONNECTIONS = 10;
// The last window against the first.
const AIM_DRIFT = 0.2;
// Memory over the second half of the run: V8 sizes its heap to the load during the first minutes (at 49
// orders/s its committed heap went 345 -> 557 MB in 5 minutes, 33 MB more in the next 5), so the last
// window's highest RSS is held against the first half's last window, not the first.
const AIM_MEMORY_GROWTH = 0.1;
// A table with more dead tuples than this is one autovacuum does not keep up with: by default it
// vacuums a table when its dead tuples pass 20 % of its rows (autovacuum_vacuum_scale_factor), which is
// a dead share of 1/6 just before the vacuum.
const AIM_DEAD_SHARE = 0.2;

export const soakScenario: Scenario = {
  name: 'soak',
  description:
    `The service as npm start runs it, on a database of its own; quote+order pairs through the partner API at half the rate it ` +
    `sustains end to end (measured first, or BENCH_SOAK_RATE orders/s) for 30 minutes (--duration), ${SUBSCRIPTIONS} subscriptions ` +
    'on a local HTTPS receiver; per window (5 minutes, or a sixth of a shorter run): deliveries/s, commit to receipt p50/p99, the ' +
    "delivery lag metric's p99, the process's RSS, and the size and dead tuples of the tables that churn.",
  run,
};

interface Window {
  fromMs: number;
  toMs: number;
  created: number;
  delivered: number;
  latencies: number[];
  pairMs: number[];
  /** At the window's end: deliveries the answered orders asked for that had not arrived. */
  behind: number;
  metrics: MetricsSample;
  /** The service's resident set, read every 2 s: lowest and highest of the window (V8's heap grows and shrinks with its collections). */
  rssMin: number;
  rssMax: number;
  /** V8's heap in use, read from /metrics every 5 s: its lowest of the window is near what survives a full collection. */
  heapMin: number;
  tables: TableSample[];
  scans: ScanSample;
  /** CPU time so far of the service's processes and of Postgres's; the machine's 1-minute load average. */
  serviceCpuMs: number;
  postgresCpuMs: number;
  load: number;
}

async function run(outer: BenchContext): Promise<ScenarioOutcome> {
  if (outer.options.profile) return { failures: [], notes: ['soak: nothing to profile (run a shorter scenario with --profile)'] };
  const seconds = outer.options.durationGiven ? Math.max(MIN_SECONDS, outer.options.durationSeconds) : DEFAULT_SECONDS;
  const windowSeconds = Math.min(MAX_WINDOW_SECONDS, seconds / 6);
  const windowCount = Math.round(seconds / windowSeconds);
  const windowMs = windowSeconds * 1000;

  // A database of its own, as the growth scenario's: the tables' sizes are the soak's alone (a second burst on a
  // database that already had one once ran far slower: docs/benchmarks.md, "The second burst").
  const database = await openBenchDatabase();
  outer.onCleanup(database.stop);
  const ctx: BenchContext = { ...outer, database };
  const sql = database.admin;
  const caDir = mkdtempSync(path.join(tmpdir(), 'bench-ca-'));
  ctx.onCleanup(async () => rmSync(caDir, { recursive: true, force: true }));
  const ca = ensureLocalCa(caDir, { name: 'Partner Delivery bench CA', days: 2 });
  const receiver = await startReceiver(ca);
  ctx.onCleanup(receiver.close);
  const child = await startService(ctx, 'as started', {
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: ca.caCert, ...JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}') },
  });
  const partner = await createBenchPartner(database.url, 'Bench partner (soak)');
  const headers = { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey };
  const api = benchClient(child.url, partner);
  const paths: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const body = { url: `https://localhost:${receiver.port}/k${i}` };
    receiver.secrets.set(`/k${i}`, succeeded(`subscription ${i}`, await api.POST('/partner/webhooks', { body })).secret);
    paths.push(`/k${i}`);
  }

  // Deliveries and latencies land in the window of their receipt; before the soak, in the calibration.
  const windows: Window[] = [];
  let soakStart = Infinity;
  let lastReceiptAt = 0;
  const windowAt = (at: number) => windows[Math.floor((at - soakStart) / windowMs)];
  const tracker = trackDeliveries(
    sql,
    receiver,
    paths,
    (at) => {
      lastReceiptAt = Math.max(lastReceiptAt, at);
      const w = windowAt(at);
      if (w) w.delivered++;
    },
    (at, latency) => windowAt(at)?.latencies.push(latency),
  );
  ctx.onCleanup(async () => tracker.stop());
  const waitForDeliveries = async (orders: number, stallMs: number) => {
    let [last, changedAt] = [-1, Date.now()];
    while (Date.now() - changedAt < stallMs) {
      await tracker.poll();
      if (tracker.distinct >= orders * SUBSCRIPTIONS) return;
      if (tracker.distinct !== last) [last, changedAt] = [tracker.distinct, Date.now()];
      await sleep(250);
    }
  };
  const countOrders = async () =>
    (await sql<{ n: number }[]>`select count(*)::int as n from orders where partner_id = ${partner.partnerId}`)[0]!.n;

  console.log(
    `${SUBSCRIPTIONS} subscriptions on a local HTTPS receiver (every signature checked); the service as npm start runs it (workers and console on); ` +
      `${windowCount} windows of ${windowSeconds} s\ndatabase: ${database.description}\n`,
  );

  // The sustained rate: orders whose deliveries have all arrived, per second, from the first order
  // to the last delivery, under a closed loop that asks for more than the pipeline delivers.
  let rate = Number(process.env.BENCH_SOAK_RATE ?? 0);
  let sustained = NaN;
  if (!(rate > 0)) {
    const closedLoop = (connections: number, durationSeconds: number) =>
      runLoad({ url: child.url, method: 'POST', connections, durationSeconds, requests: quoteThenOrder(headers) });
    await closedLoop(WARM_UP_CONNECTIONS, WARM_UP_SECONDS);
    const warmOrders = await countOrders();
    await waitForDeliveries(warmOrders, 30_000);
    const startedAt = Date.now();
    const load = await closedLoop(ctx.options.connections, CALIBRATION_SECONDS);
    const loadEnded = Date.now();
    const orders = (await countOrders()) - warmOrders;
    await waitForDeliveries(warmOrders + orders, 60_000);
    sustained = orders / ((lastReceiptAt - startedAt) / 1000);
    rate = sustained / 2;
    console.log(
      `calibration: ${ctx.options.connections} connections of quote+order pairs for ${CALIBRATION_SECONDS} s (after ${WARM_UP_SECONDS} s unmeasured): ` +
        `${int(orders)} orders (${int(load.rps / 2)} pairs/s answered), their ${int(orders * SUBSCRIPTIONS)} deliveries received by ` +
        `${((lastReceiptAt - loadEnded) / 1000).toFixed(1)} s after the last order: sustained ${int(sustained)} orders/s end to end`,
    );
  } else {
    // A warm-up at the rate given, so that the first window is not the service's first minute (JIT, pools, caches).
    const warm = await paceOrders(child.url, headers, rate, Date.now() + CALIBRATION_SECONDS * 1000, () => {});
    await waitForDeliveries(warm.created, 30_000);
    console.log(`warm-up: ${int(warm.created)} orders at ${rate} orders/s for ${CALIBRATION_SECONDS} s, not measured`);
  }
  const calibrationOrders = await countOrders();
  const agedHours = Number(process.env.BENCH_SOAK_AGED_HOURS ?? 0);
  if (agedHours > 0) {
    console.log(`the tables as ${agedHours} hours at ${rate.toFixed(1)} orders/s leave them (BENCH_SOAK_AGED_HOURS):`);
    await seedAgedTables(sql, { hours: agedHours, ordersPerSecond: rate, subscriptions: SUBSCRIPTIONS });
  }
  // A setting to try before it goes into a migration or jobs/boss.ts (a table's autovacuum thresholds, say).
  if (process.env.BENCH_SOAK_SQL) {
    console.log(`BENCH_SOAK_SQL: ${process.env.BENCH_SOAK_SQL}`);
    await sql.unsafe(process.env.BENCH_SOAK_SQL).simple();
  }
  console.log(
    `soak: ${rate.toFixed(1)} orders/s (${int(rate * SUBSCRIPTIONS)} deliveries/s) for ${seconds} s${Number.isNaN(sustained) ? ' (BENCH_SOAK_RATE)' : ', half the sustained rate'}\n`,
  );

  // CPU time per order barely depends on what else the machine runs: when latency climbs and it does
  // not, the service waited for a core rather than did more work.
  // A failed scrape says whether the service is still there, and what it last wrote to stderr.
  const scrapeOrExplain = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await scrapeMetrics(child.url);
      } catch (e) {
        if (attempt < 3) {
          await sleep(1000);
          continue;
        }
        const cause = e instanceof Error ? `${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}` : String(e);
        const alive = Number.isFinite(serviceRss(child.pid).bytes);
        throw new Error(
          `GET /metrics failed 3 times: ${cause}; the service's processes are ${alive ? 'still running' : 'gone'}; its stderr ends:\n${child.stderr().slice(-3000)}`,
        );
      }
    }
  };
  const sample = async () => ({
    serviceCpuMs: processTreeCpuMs(child.pid) ?? NaN,
    postgresCpuMs: processTreeCpuMs(database.serverPid) ?? NaN,
    load: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    metrics: await scrapeOrExplain(),
    tables: await sampleTables(sql),
    scans: await sampleScans(sql),
  });
  const atStart = await sample();
  soakStart = Date.now();
  for (let i = 0; i < windowCount; i++) {
    windows.push({
      ...atStart,
      fromMs: soakStart + i * windowMs,
      toMs: soakStart + (i + 1) * windowMs,
      created: 0,
      delivered: 0,
      latencies: [],
      pairMs: [],
      behind: 0,
      rssMin: Infinity,
      rssMax: 0,
      heapMin: Infinity,
    });
  }
  const rssReader = setInterval(() => {
    const w = windowAt(Date.now());
    const { bytes } = serviceRss(child.pid);
    if (w && Number.isFinite(bytes)) [w.rssMin, w.rssMax] = [Math.min(w.rssMin, bytes), Math.max(w.rssMax, bytes)];
  }, 2000);
  let heapReading = false;
  const heapReader = setInterval(() => {
    if (heapReading) return;
    heapReading = true;
    scrapeMetrics(child.url)
      .then(({ heapUsedBytes }) => {
        const w = windowAt(Date.now());
        if (w && Number.isFinite(heapUsedBytes)) w.heapMin = Math.min(w.heapMin, heapUsedBytes);
      })
      .catch(() => {}) // a missed reading; the window's end reports a service that is gone
      .finally(() => (heapReading = false));
  }, 5000);
  ctx.onCleanup(async () => clearInterval(rssReader));
  ctx.onCleanup(async () => clearInterval(heapReader));
  const soakEnd = soakStart + windowCount * windowMs;
  const generator = paceOrders(child.url, headers, rate, soakEnd, (orderId, answeredAt, pairMs) => {
    tracker.answered.set(orderId, answeredAt);
    const w = windowAt(answeredAt);
    if (w) {
      w.created++;
      w.pairMs.push(pairMs);
    }
  });
  const poller = setInterval(() => void tracker.poll().catch((e: unknown) => console.error('  delivery look-up failed:', e)), 1000);
  ctx.onCleanup(async () => clearInterval(poller));

  let created = 0;
  const summaries: Summary[] = [];
  for (const [i, w] of windows.entries()) {
    await sleep(w.toMs - Date.now());
    await tracker.poll();
    created += w.created;
    w.behind = (calibrationOrders + created) * SUBSCRIPTIONS - tracker.distinct;
    Object.assign(w, await sample());
    // Receipts of the window's last second get their commit times on the next look-ups.
    await sleep(1500);
    await tracker.poll();
    const s = summarise(w, i === 0 ? atStart : windows[i - 1]!, windowSeconds);
    summaries.push(s);
    console.log(
      `  window ${i + 1}/${windowCount}: ${s.ordersPerSecond.toFixed(0)} orders/s, ${int(s.deliveriesPerSecond)} deliveries/s, behind ${int(w.behind)}, ` +
        `commit to receipt p50 ${ms(s.p50)} ms p99 ${ms(s.p99)} ms, lag metric p99 ${ms(s.lagP99)} ms, pair p99 ${ms(s.pairP99)} ms, ` +
        `RSS ${mb(w.rssMin)}-${mb(w.rssMax)} MB (heap in use from ${mb(w.heapMin)}; at the end ${mb(w.metrics.heapUsedBytes)} of ${mb(w.metrics.heapTotalBytes)} committed, external ${mb(w.metrics.externalBytes)}), load ${w.load.toFixed(1)}`,
    );
    console.log(
      `    CPU per order: service ${ms(s.serviceCpuMs)} ms, Postgres ${ms(s.postgresCpuMs)} ms; pg-boss upkeep scans ${ms(w.scans.upkeepMs)} ms ` +
        `/ ${int(w.scans.upkeepPages)} pages; a fan-out fetch ${int(w.scans.fetchPages)} pages (index ${kb(w.scans.fetchIndexBytes)} KB); ` +
        `a claims sweep ${int(w.scans.sweepPages)} pages (index ${kb(w.scans.claimsIndexBytes)} KB)`,
    );
    console.log(
      `    ${w.tables
        .filter(shown)
        .map((t) => `${t.table} ${mb(t.bytes)} MB dead ${percent(deadShare(t))}`)
        .join(', ')}`,
    );
  }
  const paced = await generator;
  clearInterval(poller);
  clearInterval(rssReader);
  clearInterval(heapReader);

  // Every order's deliveries, then what never arrived.
  await waitForDeliveries(calibrationOrders + paced.created, 30_000);
  const check = await tracker.verify(partner.partnerId);
  tracker.stop();
  console.log(
    `\nafter the last order: ${int(check.expected - check.missing)} of ${int(check.expected)} deliveries of ${int(check.events)} order events received ` +
      `(the last ${((lastReceiptAt - soakEnd) / 1000).toFixed(1)} s after the timetable's end); missing ${int(check.missing)}, ` +
      `duplicates ${int(tracker.duplicates)}, invalid signatures ${receiver.invalid}, receipts on unknown paths ${tracker.strays}`,
  );
  const answers = Object.entries(paced.statuses).map(([status, n]) => `${int(n)} x ${status}`);
  console.log(
    `orders: ${int(paced.due)} due, ${int(paced.created)} created, ${int(paced.dropped)} not sent (200 pairs were in flight), ` +
      `other answers: ${answers.join(', ') || 'none'}, socket errors ${paced.errors}`,
  );

  console.log(`\n${windowTable(windows, summaries)}`);
  console.log(
    '\n(commit to receipt: from the 201 answering POST /partner/orders to the receiver; lag metric: pdp_webhook_delivery_lag_seconds, ' +
      "an attempt's start minus when it was due, p99 of the window's observations within the histogram's buckets; pair: quote + order answered; " +
      "behind: deliveries of answered orders not yet received at the window's end; heap MB min: V8's heap in use, lowest of its readings every 5 s (garbage included until collected), and heap total: what V8 had committed at the window's end; external: memory outside V8's heap held by JS objects (Buffers); load: the machine's 1-minute load average at the window's end)",
  );
  console.log(`\n${workTable(windows, summaries)}`);
  console.log(
    "\n(upkeep: the two statements pg-boss's maintenance runs over all of pgboss.job every 10 s; fetch: pg-boss's read of 50 fan-out jobs; " +
      "sweep: the read for lapsed claims every 5 s; each run by the bench with EXPLAIN ANALYZE at the window's end, pages = shared buffers touched; " +
      "CPU per order: user + system time of the service's processes and of Postgres's (with the bench's own few queries) over the window's orders)",
  );
  console.log(`\n${tablesTable(atStart.tables, windows)}`);

  const failures: string[] = [];
  if (check.missing > 0) failures.push(`soak: ${int(check.missing)} of ${int(check.expected)} deliveries never arrived`);
  if (receiver.invalid > 0) failures.push(`soak: ${receiver.invalid} deliveries with an invalid signature`);
  const refused = Object.values(paced.statuses).reduce((a, b) => a + b, 0);
  if (refused > 0 || paced.errors > 0) failures.push(`soak: ${refused} non-201 answers, ${paced.errors} socket errors`);
  const figures = aims(summaries, windows, rate, sustained);
  return {
    failures,
    figures,
    notes: [
      `${rate.toFixed(1)} orders/s for ${seconds} s in ${windowCount} windows of ${windowSeconds} s; ${int(paced.dropped)} pairs not sent (in flight limit)`,
    ],
  };
}

interface Summary {
  ordersPerSecond: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  lagP99: number;
  pairP99: number;
  serviceCpuMs: number;
  postgresCpuMs: number;
}

function summarise(
  w: Window,
  before: { metrics: MetricsSample; serviceCpuMs: number; postgresCpuMs: number },
  windowSeconds: number,
): Summary {
  const latencies = w.latencies.sort((a, b) => a - b);
  const pairs = w.pairMs.sort((a, b) => a - b);
  return {
    ordersPerSecond: w.created / windowSeconds,
    deliveriesPerSecond: w.delivered / windowSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    lagP99: quantileBetween(0.99, before.metrics.lagBuckets, w.metrics.lagBuckets) * 1000,
    pairP99: percentile(pairs, 99),
    serviceCpuMs: (w.serviceCpuMs - before.serviceCpuMs) / w.created,
    postgresCpuMs: (w.postgresCpuMs - before.postgresCpuMs) / w.created,
  };
}

function windowTable(windows: Window[], summaries: Summary[]): string {
  const first = windows[0]!.fromMs;
  const rows = summaries.map((s, i) => {
    const w = windows[i]!;
    return [
      String(i + 1),
      `${Math.round((w.fromMs - first) / 1000)}-${Math.round((w.toMs - first) / 1000)}`,
      int(s.ordersPerSecond),
      int(s.deliveriesPerSecond),
      int(w.behind),
      ms(s.p50),
      ms(s.p99),
      ms(s.lagP99),
      ms(s.pairP99),
      mb(w.rssMin),
      mb(w.rssMax),
      mb(w.heapMin),
      mb(w.metrics.heapTotalBytes),
      mb(w.metrics.externalBytes),
      w.load.toFixed(1),
    ];
  });
  return table(
    [
      'window',
      's',
      'orders/s',
      'deliveries/s',
      'behind',
      'p50 ms',
      'p99 ms',
      'lag p99 ms',
      'pair p99 ms',
      'RSS MB min',
      'RSS MB max',
      'heap MB min',
      'heap total MB',
      'external MB',
      'load',
    ],
    rows,
    { indent: '  ' },
  );
}

/** Per window: the work behind the figures, which a busy machine does not change (CPU per order, pages read by the scans). */
function workTable(windows: Window[], summaries: Summary[]): string {
  const rows = summaries.map((s, i) => {
    const w = windows[i]!;
    return [
      String(i + 1),
      ms(s.serviceCpuMs),
      ms(s.postgresCpuMs),
      ms(w.scans.upkeepMs),
      int(w.scans.upkeepPages),
      int(w.scans.fetchPages),
      kb(w.scans.fetchIndexBytes),
      int(w.scans.sweepPages),
      kb(w.scans.claimsIndexBytes),
    ];
  });
  return table(
    [
      'window',
      'service CPU ms/order',
      'Postgres CPU ms/order',
      'upkeep ms',
      'upkeep pages',
      'fetch pages',
      'fetch index KB',
      'sweep pages',
      'claims index KB',
    ],
    rows,
    { indent: '  ' },
  );
}

/** Per table: size and dead share at the soak's start and each window's end, then bytes per live row, first window against last. */
function tablesTable(atStart: TableSample[], windows: Window[]): string {
  const names = windows
    .at(-1)!
    .tables.filter(shown)
    .map((t) => t.table);
  const find = (tables: TableSample[], name: string) => tables.find((t) => t.table === name);
  const cell = (t: TableSample | undefined) => (t ? `${mb(t.bytes)} MB ${percent(deadShare(t))}` : '-');
  const rows = names.map((name) => {
    const first = find(windows[0]!.tables, name);
    const last = find(windows.at(-1)!.tables, name)!;
    return [
      name,
      cell(find(atStart, name)),
      ...windows.map((w) => cell(find(w.tables, name))),
      int(last.live),
      int(bytesPerRow(first)),
      int(bytesPerRow(last)),
      ratio(bytesPerRow(last) / bytesPerRow(first)),
      String(last.autovacuums - (find(atStart, name)?.autovacuums ?? 0)),
    ];
  });
  return table(
    [
      'table (size, dead share)',
      'start',
      ...windows.map((_, i) => `window ${i + 1}`),
      'live rows',
      'B/row w1',
      'B/row last',
      'ratio',
      'autovacuums',
    ],
    rows,
    { indent: '  ' },
  );
}

function aims(summaries: Summary[], windows: Window[], rate: number, sustained: number): Figure[] {
  const [first, last] = [summaries[0]!, summaries.at(-1)!];
  const [w1, wn] = [windows[0]!, windows.at(-1)!];
  const within = { text: `within ${AIM_DRIFT * 100} % of the first window`, met: (_v: number, r: number) => Math.abs(r - 1) <= AIM_DRIFT };
  const notAbove = { text: `ratio <= ${1 + AIM_DRIFT}`, met: (_v: number, r: number) => r <= 1 + AIM_DRIFT };
  const against = (value: number) => ({ side: 'first window', value });
  const half = Math.max(1, Math.floor(windows.length / 2));
  const figures: Figure[] = [
    ...(Number.isNaN(sustained)
      ? []
      : [figure('orders/s asked (half the sustained rate)', 'as started', rate, { side: 'sustained', value: sustained })]),
    figure('deliveries/s, last window', 'as started', last.deliveriesPerSecond, against(first.deliveriesPerSecond), within),
    figure('commit to receipt p99 ms, last window', 'as started', last.p99, against(first.p99), notAbove),
    figure('commit to receipt p50 ms, last window', 'as started', last.p50, against(first.p50)),
    figure('delivery lag metric p99 ms, last window', 'as started', last.lagP99, against(first.lagP99)),
    figure('service CPU ms per order, last window', 'as started', last.serviceCpuMs, against(first.serviceCpuMs)),
    figure('Postgres CPU ms per order, last window', 'as started', last.postgresCpuMs, against(first.postgresCpuMs)),
    figure(
      'RSS MB, highest of the last window',
      'as started',
      wn.rssMax / 2 ** 20,
      {
        side: `highest of window ${half} (the first half's last)`,
        value: windows[half - 1]!.rssMax / 2 ** 20,
      },
      { text: `ratio <= ${1 + AIM_MEMORY_GROWTH}`, met: (_v, r) => r <= 1 + AIM_MEMORY_GROWTH },
    ),
    figure('RSS MB, highest of the first window', 'as started', w1.rssMax / 2 ** 20),
    figure('V8 heap in use MB, lowest of the last window', 'as started', wn.heapMin / 2 ** 20, against(w1.heapMin / 2 ** 20)),
    figure('pg-boss upkeep scan pages, last window', 'as started', wn.scans.upkeepPages, against(w1.scans.upkeepPages)),
    figure('fan-out fetch pages, last window', 'as started', wn.scans.fetchPages, against(w1.scans.fetchPages)),
    figure('claims sweep pages, last window', 'as started', wn.scans.sweepPages, against(w1.scans.sweepPages)),
  ];
  // The dead share at one moment says where autovacuum's cycle was (up to 1/6 just before a vacuum, more
  // while a young table outgrows its last statistics): the mean over the second half of the run says
  // whether it keeps up.
  const lastHalf = windows.slice(Math.floor(windows.length / 2));
  const meanDeadShare = (table: string) => {
    const shares = lastHalf.map((w) => w.tables.find((x) => x.table === table)).map((t) => (t ? deadShare(t) : NaN));
    return shares.reduce((a, b) => a + b, 0) / shares.length;
  };
  // Tables that hold enough rows for a size per row to mean something.
  for (const t of wn.tables.filter((t) => t.live >= 1000)) {
    const w1t = w1.tables.find((x) => x.table === t.table);
    figures.push(
      ...(w1t && w1t.live > 0
        ? [figure(`${t.table}: bytes per live row`, 'as started', bytesPerRow(t), against(bytesPerRow(w1t)), notAbove)]
        : []),
      figure(
        `${t.table}: dead tuples %, mean of the last ${lastHalf.length} windows' ends`,
        'as started',
        meanDeadShare(t.table) * 100,
        undefined,
        {
          text: `< ${AIM_DEAD_SHARE * 100} %`,
          met: (v) => v < AIM_DEAD_SHARE * 100,
        },
      ),
    );
  }
  console.log("\nAims (the last window against the first, memory against the first half's last):");
  const shownValue = (v: number) => (Math.abs(v) >= 10 ? int(v) : v.toFixed(1));
  for (const f of figures.filter((f) => f.aim))
    console.log(
      `  ${f.metric}: ${shownValue(f.value)}${f.against ? ` (${f.against.side} ${shownValue(f.against.value)}, ratio ${ratio(f.against.ratio)})` : ''} ` +
        `(aim ${f.aim}): ${f.met ? 'met' : 'MISSED'}`,
    );
  return figures;
}

// pg-boss's partitions of the queues the soak hardly uses (mail, sandbox, upkeep) are left out under 1 MB.
const DELIVERY_QUEUES = ['pgboss.job webhooks.fanout', 'pgboss.job webhooks.deliver'];
const shown = (t: TableSample) => !t.table.startsWith('pgboss.job ') || DELIVERY_QUEUES.includes(t.table) || t.bytes >= 2 ** 20;
const deadShare = (t: TableSample) => (t.live + t.dead > 0 ? t.dead / (t.live + t.dead) : NaN);
const bytesPerRow = (t: TableSample | undefined) => (t && t.live > 0 ? t.bytes / t.live : NaN);
const kb = (bytes: number) => int(bytes / 1024);
const mb = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(1) : '-');
const percent = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : '-');
const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, Math.max(0, msToWait)));
