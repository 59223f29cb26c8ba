import { randomBytes } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import { runLoad, type LoadResult } from './load';
import { pacedWrongKeys } from './paced-flood';
import { createBenchPartner, type BenchPartner } from './partner';
import { figure, type BenchContext, type Figure, type Scenario, type ScenarioOutcome } from './scenario';
import { startService } from './sides';
import { int, ms, table } from './table';

// A client sending wrong keys as fast as it can, beside a partner at a steady rate. Before failed
// authentications were throttled per address, each random key cost a database query and a log line:
// the partner's p50 went from 4.5 ms to 33-37 ms under 15,000-27,000 wrong keys in 10 s.

const PATH = '/partner/event-types';
const PARTNER_RATE = 500;
// The pace the issue measured from outside (a partner's p50 4.2 → 20.5 ms, p99 7.8 → 108 ms), from an address of its own.
const PACED_RATE = 1500;
const FLOOD_ADDRESS = '127.0.0.2';

export const floodScenario: Scenario = {
  name: 'flood',
  description:
    `A partner's GET ${PATH} at ${PARTNER_RATE} requests/s: alone, beside ${PACED_RATE.toLocaleString('en-US')} wrong keys/s from another ` +
    `address (${FLOOD_ADDRESS}), and beside a flood of wrong keys as fast as 20 connections go from its own address (a fresh random key ` +
    `per request): the partner's p50/p99 each way.`,
  run: (ctx) => flood(ctx),
};

async function flood(ctx: BenchContext): Promise<ScenarioOutcome> {
  const partner = await createBenchPartner(ctx.database.url, 'Bench partner (npm run bench -- flood)');
  const sides = [{ label: 'service', cwd: undefined as string | undefined }];
  if (ctx.options.compareDir)
    sides.push({ label: `candidate (${path.basename(path.resolve(ctx.options.compareDir))})`, cwd: path.resolve(ctx.options.compareDir) });
  const rows: string[][] = [];
  const failures: string[] = [];
  const figures: Figure[] = [];
  for (const side of sides) {
    const { alone, paced, pacedFlood, beside, flooded } = await measure(ctx, partner, side.cwd);
    const statuses = (counts: Record<string, number>) =>
      Object.entries(counts)
        .map(([code, n]) => `${code}: ${int(n)}`)
        .join(', ');
    if (side.label === 'service')
      figures.push(
        figure(
          `partner p50 ms beside ${int(PACED_RATE)} wrong keys/s from another address`,
          'as started',
          paced.p50,
          { side: 'alone', value: alone.p50 },
          { text: 'ratio <= 2', met: (_v, r) => r <= 2 },
        ),
        figure(
          `partner p99 ms beside ${int(PACED_RATE)} wrong keys/s from another address`,
          'as started',
          paced.p99,
          { side: 'alone', value: alone.p99 },
          { text: 'ratio <= 3', met: (_v, r) => r <= 3 },
        ),
        figure('partner p50 ms beside a wrong-key flood (flat out)', 'as started', beside.p50, { side: 'alone', value: alone.p50 }),
        figure('partner p99 ms beside a wrong-key flood (flat out)', 'as started', beside.p99, { side: 'alone', value: alone.p99 }),
      );
    const row = (label: string, r: LoadResult) => [side.label, label, int(r.rps), ms(r.p50), ms(r.p99), int(r.non2xx), int(r.errors)];
    rows.push(row('alone', alone), row(`beside ${int(PACED_RATE)} wrong keys/s`, paced), row('beside the flood (flat out)', beside));
    console.log(
      `${side.label}: the paced flood sent ${int(pacedFlood.sent)} wrong keys in ${pacedFlood.seconds.toFixed(1)} s from ${FLOOD_ADDRESS} ` +
        `(${statuses(pacedFlood.statusCounts)}; ${int(pacedFlood.skipped)} skipped, ${int(pacedFlood.errors)} errors); ` +
        `partner p50 beside it / alone ${(paced.p50 / alone.p50).toFixed(2)}x, p99 ${(paced.p99 / alone.p99).toFixed(2)}x`,
    );
    const flatCounts = Object.fromEntries(Object.entries(flooded.statusCodeStats).map(([code, s]) => [code, s.count]));
    console.log(
      `${side.label}: the flat-out flood sent ${int(Object.values(flatCounts).reduce((a, n) => a + n, 0))} wrong-key requests in ${flooded.duration} s (${statuses(flatCounts)}); ` +
        `partner p50 beside it / alone ${(beside.p50 / alone.p50).toFixed(2)}x, p99 ${(beside.p99 / alone.p99).toFixed(2)}x`,
    );
    for (const [when, r] of [
      ['alone', alone],
      ['beside the paced flood', paced],
      ['beside the flood', beside],
    ] as const) {
      if (r.non2xx + r.errors > 0)
        failures.push(`flood: ${side.label} gave the partner ${r.non2xx} non-2xx and ${r.errors} errors (${when})`);
    }
  }
  console.log('\n' + table(['side', 'partner', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'], rows));
  return { failures, figures };
}

async function measure(ctx: BenchContext, partner: BenchPartner, cwd: string | undefined) {
  const { options } = ctx;
  // As a newcomer's npm start runs it (workers and console on, the log read as a terminal reads it).
  const child = await startService(ctx, 'as started', { cwd, label: cwd ? 'candidate' : undefined });
  try {
    const headers = { 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey };
    const partnerLoad = () =>
      runLoad({
        url: child.url + PATH,
        method: 'GET',
        headers,
        connections: 10,
        durationSeconds: options.durationSeconds,
        rate: PARTNER_RATE,
      });
    await runLoad({ url: child.url + PATH, method: 'GET', headers, connections: 10, durationSeconds: options.warmupSeconds });
    const alone = await partnerLoad();
    const pacing = pacedWrongKeys(child.url + PATH, {
      perSecond: PACED_RATE,
      seconds: options.durationSeconds + 1,
      localAddress: FLOOD_ADDRESS,
      connections: 50,
    });
    const paced = await partnerLoad();
    const pacedFlood = await pacing;
    const attacker = autocannon({
      url: child.url,
      connections: 20,
      duration: options.durationSeconds + 1,
      requests: [
        {
          method: 'GET',
          path: PATH,
          setupRequest: (req) => ({
            ...req,
            headers: { 'x-client-id': 'ci_attacker', 'x-api-key': `sk_sandbox_${randomBytes(24).toString('hex')}` },
          }),
        },
      ],
    });
    const beside = await partnerLoad();
    const flooded = await attacker;
    return { alone, paced, pacedFlood, beside, flooded };
  } finally {
    await child.stop();
  }
}
