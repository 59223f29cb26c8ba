import { QUOTE_BODY, quoteThenOrder } from './api';
import { openBenchDatabase } from './database';
import { deliveryScenario } from './delivery';
import { seedHistory } from './history';
import { runLoad, type LoadSpec } from './load';
import { createBenchPartner, type BenchPartner } from './partner';
import type { ChildServer } from './processes';
import { figure, type BenchContext, type Figure, type Scenario, type ScenarioOutcome } from './scenario';
import { startService } from './sides';
import { int, ms, ratio, table } from './table';

// The cost of growth: quotes, orders and the delivery engine on a database of their own, then again
// once events, deliveries and attempts hold ten times the rows, with the plans of the statements
// that must not grow with the tables.

// Within 20 % of the small-table run.
const AIM = 0.8;
// How many times the small run's rows each grown run holds: 10 by default; BENCH_GROWTH_FACTORS=10,100 adds the
// largest this machine holds in an hour's run (100x on 2026-11-27: 11,207,000 events, 22,414,000 attempts, 15.8 GiB, seeded in 24 min).
const factors = () =>
  (process.env.BENCH_GROWTH_FACTORS ?? '10')
    .split(',')
    .map((f) => Number(f.trim()))
    .filter((f) => Number.isInteger(f) && f > 1);

export const growthScenario: Scenario = {
  name: 'growth',
  description:
    'Quotes, quote+order pairs and the delivery engine (as started) on a fresh database, then again with 10x the rows in events, ' +
    'deliveries and attempts (bench/history.ts; BENCH_GROWTH_FACTORS=10,100 for more sizes), and the query plans that keep them flat.',
  async run(ctx): Promise<ScenarioOutcome> {
    // Each size on a fresh database of its own, seeded, then measured as the small one is: every run starts on tables
    // whose history is settled, so what differs between them is the size alone.
    const fresh = async () => {
      const database = await openBenchDatabase();
      ctx.onCleanup(database.stop);
      const own: BenchContext = { ...ctx, database };
      return { database, own, partner: await createBenchPartner(database.url, 'Bench partner (growth)') };
    };
    const first = await fresh();
    const small = await measure(first.own, first.partner, 'small tables');
    const before = await counts(first.own);
    await first.database.stop();

    const failures = [...small.failures];
    const figures: Figure[] = [];
    const notes: string[] = [];
    const rows: string[][] = [];
    const aim = { text: `ratio >= ${AIM}`, met: (_v: number, r: number) => r >= AIM };
    for (const [i, factor] of factors().entries()) {
      const grown = await fresh();
      // Each of the three tables to `factor` times the small run's rows (one delivery and two attempts per seeded event).
      const events = factor * Math.max(before.deliveries, before.events);
      console.log(`
A fresh database seeded with ${int(events)} events with their deliveries and attempts (bench/history.ts)...`);
      const seeding = performance.now();
      await seedHistory(grown.database.admin, { events, days: 20, tag: 'growth' });
      // The seed's dirty pages written now, not by a checkpoint in the middle of the next measurement.
      await grown.database.admin`checkpoint`;
      const after = await counts(grown.own);
      const [size] = await grown.database.admin<{ bytes: string }[]>`select pg_database_size(current_database())::text as bytes`;
      console.log(
        `seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s, database ${(Number(size!.bytes) / 2 ** 30).toFixed(1)} GiB; rows, small run → ` +
          `before the ${factor}x run: events ${int(before.events)} → ${int(after.events)}, deliveries ${int(before.deliveries)} → ` +
          `${int(after.deliveries)}, attempts ${int(before.attempts)} → ${int(after.attempts)}\n`,
      );
      const label = `${factor}x rows`;
      const large = await measure(grown.own, grown.partner, label);
      failures.push(...large.failures);
      for (const k of ['quotes/s', 'pairs/s', 'deliveries/s'] as const) {
        rows.push([`${k}, ${label}`, int(small[k]), int(large[k]), ratio(large[k] / small[k])]);
        figures.push(figure(`${k} with ${label}`, 'as started', large[k], { side: 'small tables', value: small[k] }, aim));
      }
      rows.push([`quotes p99 ms, ${label}`, ms(small.quotesP99), ms(large.quotesP99), ratio(large.quotesP99 / small.quotesP99)]);
      figures.push(figure(`quotes p99 ms with ${label}`, 'as started', large.quotesP99, { side: 'small tables', value: small.quotesP99 }));
      notes.push(`${label}: ${int(after.attempts)} attempts, database ${(Number(size!.bytes) / 2 ** 30).toFixed(1)} GiB`);
      // The plans on the largest tables measured; the smaller databases are gone by then (disk).
      if (i === factors().length - 1) notes.push(...(await plans(grown.own)));
      await grown.database.stop();
    }
    console.log(`\n${table(['figure', 'small tables', 'grown', 'ratio'], rows, { indent: '  ' })}`);
    return { failures, figures, notes };
  },
};

async function counts(ctx: BenchContext): Promise<{ events: number; deliveries: number; attempts: number }> {
  const [row] = await ctx.database.admin<{ events: number; deliveries: number; attempts: number }[]>`
    select (select count(*) from events)::int as events, (select count(*) from webhook_deliveries)::int as deliveries,
      (select count(*) from webhook_attempts)::int as attempts`;
  return row!;
}

async function measure(ctx: BenchContext, partner: BenchPartner, label: string) {
  const failures: string[] = [];
  const headers = { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey };
  const child = await startService(ctx, 'as started');
  const spec = (child: ChildServer, durationSeconds: number, pairs: boolean): LoadSpec => ({
    url: child.url + (pairs ? '' : '/partner/quotes'),
    method: 'POST',
    headers,
    body: QUOTE_BODY,
    connections: ctx.options.connections,
    durationSeconds,
    ...(pairs
      ? {
          requests: quoteThenOrder(headers),
        }
      : {}),
  });
  await ctx.database.admin`checkpoint`;
  await runLoad(spec(child, ctx.options.warmupSeconds, false));
  const quotes = await runLoad(spec(child, ctx.options.durationSeconds, false));
  const pairs = await runLoad(spec(child, ctx.options.durationSeconds, true));
  await child.stop();
  for (const [what, r] of [
    ['quotes', quotes],
    ['pairs', pairs],
  ] as const)
    if (r.non2xx + r.errors > 0) failures.push(`growth (${label}) ${what}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  console.log(
    `${label}: quotes ${int(quotes.rps)}/s p99 ${ms(quotes.p99)} ms; quote+order pairs ${int(pairs.rps / 2)}/s; the delivery engine:`,
  );
  await ctx.database.admin`checkpoint`;
  const delivery = await deliveryScenario.run(ctx);
  failures.push(...delivery.failures.map((f) => `growth (${label}) ${f}`));
  const burst = delivery.figures?.find((f) => f.metric === 'deliveries/s, burst')?.value ?? NaN;
  return { failures, 'quotes/s': quotes.rps, quotesP99: quotes.p99, 'pairs/s': pairs.rps / 2, 'deliveries/s': burst };
}

// The statements each order, fan-out and sweep runs, as Postgres plans them on the grown tables: each
// reads by a unique or a partial index, so its cost does not follow the table's size.
async function plans(ctx: BenchContext): Promise<string[]> {
  // Ids of real rows, the newest: the tables are partitioned by id (time), so a made-up id plans against a partition
  // that holds none of them (`events_default`).
  const [d] = await ctx.database.admin<{ id: string; event_id: string; subscription_id: string }[]>`
    select id, event_id, subscription_id from webhook_deliveries order by id desc limit 1`;
  const { id, event_id: e, subscription_id: s } = d!;
  const statements: [string, string][] = [
    ['an order locks its quote', `select id from quotes where id = 'q' and partner_id = 'p' and environment = 'sandbox' for update`],
    ['fan-out reads its events', `select id, envelope from events where id = any(array['${e}', '${e}'])`],
    [
      'fan-out inserts deliveries (conflict check)',
      `select 1 from webhook_deliveries where event_id = '${e}' and subscription_id = '${s}'`,
    ],
    [
      'the sweeper finds lapsed claims',
      `select id from webhook_deliveries where status = 'pending' and claimed_until is not null and claimed_until < now() limit 500`,
    ],
    ['a delivery page of the console', `select id from webhook_deliveries order by id desc limit 51`],
    // Partitioned by week (server/history/): a delivery named by its id alone, and its attempts, are looked up in each week's index.
    // The engine names a delivery by its whole key (issue 23: by its id alone, every week's index was read).
    ['a claim names a delivery by id and event', `select id from webhook_deliveries where id = '${id}' and event_id = '${e}'`],
    ["a delivery's attempts", `select id from webhook_attempts where delivery_id = '${id}' order by attempt`],
  ];
  const notes: string[] = [];
  console.log('\nQuery plans on the grown tables:');
  for (const [what, text] of statements) {
    const plan = await ctx.database.admin.unsafe<{ 'QUERY PLAN': string }[]>(`explain ${text}`);
    const lines = plan.map((r) => r['QUERY PLAN']);
    console.log(`  ${what}:\n${lines.map((l) => `    ${l}`).join('\n')}`);
    const access = lines.find((l) => /Index|Seq Scan|Bitmap/.test(l))?.trim() ?? lines[0]!.trim();
    notes.push(`plan, ${what}: ${access.replace(/\s+\(cost=.*$/, '')}`);
  }
  return notes;
}
