import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processTreeCpuMs } from './cpu';
import { median, runLoad, type LoadResult, type LoadSpec } from './load';
import { createBenchPartner, type BenchPartner } from './partner';
import { analyseProfile, formatBreakdown, largestProfile, readProfile } from './profile';
import { REPO_ROOT, startChild, type ChildServer } from './processes';
import type { BenchContext, Scenario, ScenarioOutcome } from './scenario';
import { int, ms, pct, ratio, table } from './table';

const PATH = '/partner/quotes';
const BODY = JSON.stringify({ pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } });
const POOL = '10'; // DB_POOL_MAX, the service's default; the baseline gets the same pool

// The aims: the service against the plain node:http + postgres.js floor.
const AIM_RPS_RATIO = 0.5;
const AIM_P99_RATIO = 1.5;

interface Side {
  key: string;
  label: string;
  script: string;
  /** Checkout to run the script from (default: this one). */
  cwd?: string;
  isService: boolean;
  env: (databaseUrl: string, partner: BenchPartner) => Record<string, string>;
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
const QUIET: Side = {
  key: 'service-quiet',
  label: 'service, LOG_LEVEL=warn',
  script: 'server/boot/web.ts',
  isService: true,
  env: serviceEnv('warn'),
};
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

export const quotesScenario: Scenario = {
  name: 'quotes',
  description:
    'Authenticated POST /partner/quotes on the real service (server/boot/web.ts, production settings, per-request info log; and again ' +
    'with LOG_LEVEL=warn, no request log), beside a plain node:http + postgres.js server inserting the same row (bench/baseline-server.ts).',
  run: (ctx) => (ctx.options.profile ? profile(ctx) : compare(ctx)),
};

async function start(ctx: BenchContext, side: Side, partner: BenchPartner, nodeArgs: string[] = []): Promise<ChildServer> {
  const child = await startChild(side.label, side.script, side.env(ctx.database.url, partner), { nodeArgs, cwd: side.cwd });
  ctx.onCleanup(child.stop);
  return child;
}

function loadSpec(ctx: BenchContext, child: ChildServer, partner: BenchPartner, durationSeconds: number): LoadSpec {
  return {
    url: child.url + PATH,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey },
    body: BODY,
    connections: ctx.options.connections,
    durationSeconds,
    rate: ctx.options.rate,
  };
}

/** One request, checked, before any load: a side that answers wrongly would make every figure meaningless. */
async function smokeCheck(child: ChildServer, partner: BenchPartner): Promise<void> {
  const response = await fetch(child.url + PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey },
    body: BODY,
  });
  const text = await response.text();
  let quote: { object?: string; distance_meters?: number; fee?: { amount?: number } } = {};
  try {
    quote = JSON.parse(text) as typeof quote;
  } catch {
    // reported below
  }
  if (response.status !== 201 || quote.object !== 'quote' || !quote.distance_meters || !quote.fee?.amount) {
    throw new Error(`${child.name}: POST ${PATH} answered ${response.status} ${text.slice(0, 300)}; stderr:\n${child.stderr()}`);
  }
}

async function countRows(ctx: BenchContext, partner: BenchPartner): Promise<number> {
  const [row] = await ctx.database.admin<{ n: number }[]>`select count(*)::int as n from quotes where partner_id = ${partner.partnerId}`;
  return row?.n ?? 0;
}

interface Run {
  round: number;
  side: Side;
  result: LoadResult;
  rows: number;
  /** CPU microseconds per 2xx response: the side's server process (all threads), and the database server. */
  serverCpu: number;
  dbCpu: number;
}

async function compare(ctx: BenchContext): Promise<ScenarioOutcome> {
  const { options } = ctx;
  const sides = [SERVICE, BASELINE, QUIET, ...(options.compareDir ? [candidate(options.compareDir)] : [])];
  console.log(
    `POST ${PATH} ${BODY}\n` +
      `${options.connections} connections${options.rate ? `, ${options.rate} requests/s in all (fixed rate)` : ''}, ${options.durationSeconds} s per run, ${options.rounds} round(s), ${options.warmupSeconds} s warm-up per side; ` +
      `the order of the sides rotates every round.\n` +
      `service: tsx server/boot/web.ts, NODE_ENV=production WORKERS=off CONSOLE=off LOG_LEVEL=info DB_POOL_MAX=${POOL}; stdout (one pino line per request) -> /dev/null.\n` +
      `baseline: tsx bench/baseline-server.ts: node:http, JSON.parse, one postgres.js insert ... returning * (same columns), pool ${POOL}; no auth, no log.\n` +
      (options.compareDir ? `candidate: the service of ${path.resolve(options.compareDir)}, same settings as service.\n` : '') +
      `database: ${ctx.database.description}\n` +
      `srv CPU / db CPU: CPU microseconds per 2xx response used by the side's server process (all threads) / by the database server` +
      `${ctx.database.serverPid ? '' : ' (not on this machine: -)'}; steadier than req/s on a busy machine.\n`,
  );
  const partner = await createBenchPartner(ctx.database.url, 'Bench partner (npm run bench)');
  const children = new Map<string, ChildServer>();
  for (const side of sides) {
    const child = await start(ctx, side, partner);
    await smokeCheck(child, partner);
    children.set(side.key, child);
  }
  if (options.warmupSeconds > 0) {
    for (const side of sides) await runLoad(loadSpec(ctx, children.get(side.key)!, partner, options.warmupSeconds));
  }

  const header = ['round', 'side', 'req/s', 'p50 ms', 'p99 ms', 'srv CPU', 'db CPU', '2xx', 'non-2xx', 'errors', 'rows'];
  const widths = [5, Math.max(...sides.map((s) => s.label.length)), 7, 7, 7, 7, 7, 8, 7, 6, 8];
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));

  const runs: Run[] = [];
  const failures: string[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const shift = (round - 1) % sides.length;
    const order = [...sides.slice(shift), ...sides.slice(0, shift)];
    for (const side of order) {
      const child = children.get(side.key)!;
      // Flush dirty pages now, so that a checkpoint does not land in the middle of one side's run.
      await ctx.database.admin`checkpoint`.catch(() => {});
      const rowsBefore = await countRows(ctx, partner);
      const cpuBefore = [processTreeCpuMs(child.pid), processTreeCpuMs(ctx.database.serverPid)];
      const result = await runLoad(loadSpec(ctx, child, partner, options.durationSeconds));
      const cpuAfter = [processTreeCpuMs(child.pid), processTreeCpuMs(ctx.database.serverPid)];
      const rows = (await countRows(ctx, partner)) - rowsBefore;
      const perRequest = (i: number) =>
        cpuBefore[i] !== undefined && cpuAfter[i] !== undefined ? ((cpuAfter[i]! - cpuBefore[i]!) * 1000) / result.ok : NaN;
      const run: Run = { round, side, result, rows, serverCpu: perRequest(0), dbCpu: perRequest(1) };
      runs.push(run);
      console.log(
        line([
          String(round),
          side.label,
          int(result.rps),
          ms(result.p50),
          ms(result.p99),
          int(run.serverCpu),
          int(run.dbCpu),
          int(result.ok),
          int(result.non2xx),
          int(result.errors),
          int(rows),
        ]),
      );
      if (result.non2xx > 0 || result.errors > 0) {
        failures.push(
          `quotes / ${side.label}, round ${round}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCounts)}), ${result.errors} socket errors/timeouts`,
        );
      }
      if (rows < result.ok * 0.99)
        failures.push(`quotes / ${side.label}, round ${round}: ${result.ok} 2xx responses but only ${rows} rows inserted`);
    }
  }
  for (const child of children.values()) await child.stop();

  const summary = new Map(
    sides.map((side) => {
      const mine = runs.filter((r) => r.side === side);
      const m = (f: (r: Run) => number) => median(mine.map(f));
      return [
        side.key,
        {
          side,
          rps: m((r) => r.result.rps),
          p50: m((r) => r.result.p50),
          p99: m((r) => r.result.p99),
          serverCpu: m((r) => r.serverCpu),
          dbCpu: m((r) => r.dbCpu),
          non2xx: mine.reduce((a, r) => a + r.result.non2xx, 0),
          errors: mine.reduce((a, r) => a + r.result.errors, 0),
        },
      ] as const;
    }),
  );
  const base = summary.get('baseline')!;
  const svc = summary.get('service')!;
  const quiet = summary.get('service-quiet')!;

  console.log(`\nMedians over ${options.rounds} round(s), and each side against the baseline:`);
  console.log(
    table(
      [
        'side',
        'req/s',
        'p50 ms',
        'p99 ms',
        'srv CPU',
        'db CPU',
        'req/s ÷ base',
        'p99 ÷ base',
        'srv CPU ÷ base',
        'db CPU ÷ base',
        'non-2xx',
        'errors',
      ],
      [...summary.values()].map((s) => [
        s.side.label,
        int(s.rps),
        ms(s.p50),
        ms(s.p99),
        int(s.serverCpu),
        int(s.dbCpu),
        s.side.isService ? ratio(s.rps / base.rps) : '',
        s.side.isService ? ratio(s.p99 / base.p99) : '',
        s.side.isService ? ratio(s.serverCpu / base.serverCpu) : '',
        s.side.isService ? ratio(s.dbCpu / base.dbCpu) : '',
        int(s.non2xx),
        int(s.errors),
      ]),
      { indent: '  ' },
    ),
  );

  const rpsRatio = svc.rps / base.rps;
  const p99Ratio = svc.p99 / base.p99;
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log('\nAims (service, medians):');
  console.log(
    `  requests/s: ${ratio(rpsRatio)} of the baseline's (aim >= ${AIM_RPS_RATIO.toFixed(2)}): ${verdict(rpsRatio >= AIM_RPS_RATIO)}`,
  );
  console.log(
    `  p99:        ${ratio(p99Ratio)}x the baseline's (aim <= ${AIM_P99_RATIO.toFixed(2)}): ${verdict(p99Ratio <= AIM_P99_RATIO)}`,
  );
  console.log(
    `  the request log (info against warn): ${pct((100 * (svc.rps - quiet.rps)) / quiet.rps)} req/s, ${pct((100 * (svc.p99 - quiet.p99)) / quiet.p99)} p99, ` +
      `${pct((100 * (svc.serverCpu - quiet.serverCpu)) / quiet.serverCpu)} server CPU per request`,
  );
  const non2xx = [...summary.values()].map((s) => `${s.side.label} ${s.non2xx}`).join(', ');
  console.log(
    `  non-2xx responses: ${non2xx}${[...summary.values()].every((s) => s.non2xx === 0 && s.errors === 0) ? ' (none: OK)' : ' (FAILED)'}`,
  );
  return { failures };
}

async function profile(ctx: BenchContext): Promise<ScenarioOutcome> {
  const { options } = ctx;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-profile-'));
  console.log(
    `Profiling each side alone with node --cpu-prof (a sample every 250 us): ${options.warmupSeconds} s warm-up, then ${options.durationSeconds} s at ` +
      `${options.connections} connections; the breakdown covers that measured window only. The profiler slows the process down: ` +
      `read the shares and the per-request microseconds, not the throughput. Profiles are kept in ${dir} (Chrome DevTools opens them).\n`,
  );
  const partner = await createBenchPartner(ctx.database.url, 'Bench partner (npm run bench --profile)');
  const failures: string[] = [];
  const busy: string[] = [];
  const sides = [SERVICE, BASELINE, ...(options.compareDir ? [candidate(options.compareDir)] : [])];
  for (const side of sides) {
    const sideDir = path.join(dir, side.key);
    mkdirSync(sideDir);
    // Not NODE_OPTIONS (node refuses --cpu-prof there): tsx hands these flags to the node process that runs the script.
    const child = await start(ctx, side, partner, ['--cpu-prof', `--cpu-prof-dir=${sideDir}`, '--cpu-prof-interval=250']);
    await smokeCheck(child, partner);
    if (options.warmupSeconds > 0) await runLoad(loadSpec(ctx, child, partner, options.warmupSeconds));
    const result = await runLoad(loadSpec(ctx, child, partner, options.durationSeconds));
    await child.stop();
    if (result.non2xx > 0 || result.errors > 0)
      failures.push(`quotes --profile / ${side.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const file = largestProfile(sideDir);
    if (!file) {
      failures.push(`quotes --profile / ${side.label}: no .cpuprofile written in ${sideDir}`);
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
  console.log(`Main-thread time per request: ${busy.join(', ')}.`);
  return { failures };
}
