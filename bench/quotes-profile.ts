import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runLoad, type LoadSpec } from './load';
import { createBenchPartner, type BenchPartner } from './partner';
import { analyseProfile, formatBreakdown, largestProfile, readProfile } from './profile';
import { REPO_ROOT, startChild, type ChildServer } from './processes';
import type { BenchContext, ScenarioOutcome } from './scenario';
import { int, ms } from './table';

const BODY = JSON.stringify({ pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } });
const POOL = '10'; // DB_POOL_MAX, the service's default; the baseline gets the same pool

interface Side {
  key: string;
  label: string;
  script: string;
  /** Checkout to run the script from (default: this one). */
  cwd?: string;
  isService: boolean;
  env: (databaseUrl: string, partner: BenchPartner) => Record<string, string>;
}

/** What one profiled load sends: one request, over and over on every connection. */
export interface ProfiledRequest {
  title: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** The answer a side must give before the load (status, and a check of its JSON). */
  expect: { status: number; check(body: Record<string, unknown>): boolean };
  /** More settings for the baseline (e.g. the bytes it answers). */
  baselineEnv?: Record<string, string>;
}

const serviceEnv =
  (logLevel: string) =>
  (databaseUrl: string): Record<string, string> => ({
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    WORKERS: 'off',
    CONSOLE: 'off',
    SEED_DEMO: 'false',
    LOG_LEVEL: logLevel,
    DB_POOL_MAX: POOL,
    // Required with DATABASE_URL; nothing the bench makes is sealed with it.
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });

const SERVICE: Side = { key: 'service', label: 'service', script: 'server/boot/web.ts', isService: true, env: serviceEnv('info') };
const BASELINE: Side = {
  key: 'baseline',
  label: 'baseline',
  script: 'bench/baseline-server.ts',
  isService: false,
  env: (databaseUrl, partner) => ({
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    DB_POOL_MAX: POOL,
    BENCH_PARTNER_ID: partner.partnerId,
    BENCH_ENVIRONMENT: partner.environment,
  }),
};

/** --compare=DIR: the service of another checkout (e.g. an optimisation), same settings as `service`. */
function candidate(dir: string): Side {
  const cwd = path.resolve(dir);
  // Checkouts from before server/boot/ started the service from server/main.ts.
  const script = existsSync(path.join(cwd, 'server/boot/web.ts')) ? 'server/boot/web.ts' : 'server/main.ts';
  return { key: 'candidate', label: `candidate (${path.basename(cwd)})`, script, cwd, isService: true, env: serviceEnv('info') };
}

async function start(ctx: BenchContext, side: Side, partner: BenchPartner, nodeArgs: string[] = []): Promise<ChildServer> {
  const child = await startChild(side.label, side.script, side.env(ctx.database.url, partner), { nodeArgs, cwd: side.cwd });
  ctx.onCleanup(child.stop);
  return child;
}

function loadSpec(ctx: BenchContext, child: ChildServer, partner: BenchPartner, what: ProfiledRequest, durationSeconds: number): LoadSpec {
  return {
    url: child.url + what.path,
    method: what.method,
    headers: { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey },
    body: what.body,
    connections: ctx.options.connections,
    durationSeconds,
    rate: ctx.options.rate,
  };
}

/** One request, checked, before any load: a side that answers wrongly would make every figure meaningless. */
async function smokeCheck(child: ChildServer, partner: BenchPartner, what: ProfiledRequest): Promise<Record<string, unknown>> {
  const response = await fetch(child.url + what.path, {
    method: what.method,
    headers: { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey },
    body: what.body,
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // reported below
  }
  if (response.status !== what.expect.status || !what.expect.check(body)) {
    throw new Error(
      `${child.name}: ${what.method} ${what.path} answered ${response.status} ${text.slice(0, 300)}; stderr:\n${child.stderr()}`,
    );
  }
  return body;
}

const QUOTE: ProfiledRequest = {
  title: 'POST /partner/quotes',
  method: 'POST',
  path: '/partner/quotes',
  body: BODY,
  expect: {
    status: 201,
    check: (q) => q.object === 'quote' && !!q.distance_meters && !!(q.fee as { amount?: number } | undefined)?.amount,
  },
};

/** `npm run bench -- quotes --profile`: where the service's CPU goes per quote and per order read, beside the baseline's. */
export async function profileQuotes(ctx: BenchContext): Promise<ScenarioOutcome> {
  const partner = await createBenchPartner(ctx.database.url, 'Bench partner (npm run bench --profile)');
  const quotes = await profileRequests(ctx, partner, QUOTE);
  // One order to read, made through the API by a service process.
  const maker = await start(ctx, SERVICE, partner);
  const quote = await smokeCheck(maker, partner, QUOTE);
  const order = await smokeCheck(maker, partner, {
    title: 'POST /partner/orders',
    method: 'POST',
    path: '/partner/orders',
    body: JSON.stringify({ quote_id: quote.id }),
    expect: { status: 201, check: (b) => b.object === 'order' },
  });
  await maker.stop();
  const reads = await profileRequests(ctx, partner, {
    title: 'GET /partner/orders/{id}',
    method: 'GET',
    path: `/partner/orders/${String(order.id)}`,
    expect: { status: 200, check: (b) => b.id === order.id },
  });
  return { failures: [...quotes.failures, ...reads.failures], notes: [...(quotes.notes ?? []), ...(reads.notes ?? [])] };
}

/** `npm run bench -- overhead --profile`: the partner layer's CPU per request, for the bytes the baseline answers as they are. */
export async function profileOverhead(ctx: BenchContext): Promise<ScenarioOutcome> {
  const partner = await createBenchPartner(ctx.database.url, 'Bench partner (overhead --profile)');
  const probe = await start(ctx, SERVICE, partner);
  const bytes = await (
    await fetch(`${probe.url}/partner/event-types`, { headers: { 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey } })
  ).text();
  await probe.stop();
  return profileRequests(ctx, partner, {
    title: 'GET /partner/event-types',
    method: 'GET',
    path: '/partner/event-types',
    expect: { status: 200, check: (b) => Array.isArray(b.data) },
    baselineEnv: { BENCH_EVENT_TYPES_BODY: bytes },
  });
}

/** Each side alone under the profiler, with `what` as its load; a breakdown per side, and the main thread's time per request. */
export async function profileRequests(ctx: BenchContext, partner: BenchPartner, what: ProfiledRequest): Promise<ScenarioOutcome> {
  const { options } = ctx;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-profile-'));
  console.log(
    `Profiling each side alone with node --cpu-prof (a sample every 250 us): ${options.warmupSeconds} s warm-up, then ${options.durationSeconds} s at ` +
      `${options.connections} connections; the breakdown covers that measured window only. The profiler slows the process down: ` +
      `read the shares and the per-request microseconds, not the throughput. Profiles are kept in ${dir} (Chrome DevTools opens them).\n`,
  );
  console.log(`--- ${what.title}\n`);
  const failures: string[] = [];
  const busy: string[] = [];
  const baseline: Side = { ...BASELINE, env: (url, p) => ({ ...BASELINE.env(url, p), ...what.baselineEnv }) };
  const sides = [SERVICE, baseline, ...(options.compareDir ? [candidate(options.compareDir)] : [])];
  for (const side of sides) {
    const sideDir = path.join(dir, side.key);
    mkdirSync(sideDir);
    // Not NODE_OPTIONS (node refuses --cpu-prof there): flags of the node process that runs the script.
    const child = await start(ctx, side, partner, ['--cpu-prof', `--cpu-prof-dir=${sideDir}`, '--cpu-prof-interval=250']);
    await smokeCheck(child, partner, what);
    if (options.warmupSeconds > 0) await runLoad(loadSpec(ctx, child, partner, what, options.warmupSeconds));
    const result = await runLoad(loadSpec(ctx, child, partner, what, options.durationSeconds));
    await child.stop();
    if (result.non2xx > 0 || result.errors > 0)
      failures.push(`${what.title} --profile / ${side.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const file = largestProfile(sideDir);
    if (!file) {
      failures.push(
        `${what.title} --profile / ${side.label}: no .cpuprofile written in ${sideDir}; its stderr's end:\n${child.stderr().slice(-2000)}`,
      );
      continue;
    }
    const b = analyseProfile(
      readProfile(file),
      { fromUs: result.startedAtUs, toUs: result.finishedAtUs },
      result.responses,
      side.cwd ?? REPO_ROOT,
    );
    console.log(`=== ${side.label} (${int(result.rps)} req/s under the profiler, p99 ${ms(result.p99)} ms) - ${file}`);
    console.log(formatBreakdown(side.label, b, side.isService ? 40 : 20));
    console.log('');
    busy.push(`${side.label} ${b.busyUsPerRequest.toFixed(0)} us`);
  }
  console.log(`Main-thread time per request: ${busy.join(', ')}.\n`);
  return { failures, notes: [`${what.title}: main-thread time per request ${busy.join(', ')}`] };
}
