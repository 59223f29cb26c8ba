// The console's queries over a large history: 500,000 deliveries with 1,000,000 attempts over 29 days on an
// embedded Postgres of its own, then each deliveries filter (a 50-row page with every attempt), the overview,
// a subscription's health and a partners page, through /api/graphql as an operator. `npx tsx bench/big-history.ts`
// (issue 17 folds it into `npm run bench`).
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import postgres from 'postgres';
import { loadEnv } from '@/server/config/env';
import { createLogger } from '@/server/logger';
import { startProcess } from '@/server/boot/start-process';
import { createOperator } from '@/server/operators/create';
import { cliContext } from '@/server/cli/operator-context';
import { startOwnPostgres } from '@/test/support/own-postgres';

const pg = await startOwnPostgres('big');
const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
const t0 = performance.now();
// One base time for every table, so an event's id and its deliveries' ids agree.
const base = new Date(Date.now() - 500_000 * 5000 - 60_000).toISOString();
// ULIDs as the service makes them: the creation time's 10 characters, then a unique tail.
await sql`create function ulid_at(ts timestamptz, n bigint) returns text language plpgsql immutable as $$
  declare ms bigint := floor(extract(epoch from ts) * 1000); alphabet text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; t text := '';
  begin for i in 1..10 loop t := substr(alphabet, (ms % 32)::int + 1, 1) || t; ms := ms / 32; end loop;
  return t || lpad(upper(to_hex(n)), 16, '0'); end $$`;
await sql`insert into partners (id, name) values ('P0000000000000000000000001', 'Big'), ('P0000000000000000000000002', 'Small')`;
await sql`insert into webhook_subscriptions (id, partner_id, environment, url, event_filters, status, secret_sealed, previous_secrets, created_at, updated_at)
  select 'S' || lpad(i::text, 25, '0'), case when i <= 19 then 'P0000000000000000000000001' else 'P0000000000000000000000002' end, 'sandbox',
    'https://example.com/' || i, '[]'::jsonb, 'enabled', 'x', '[]'::jsonb, now() - interval '40 days', now()
  from generate_series(1, 20) i`;
// 500,000 events over 30 days (ULID-like ids sorted by time), each to one subscription, two attempts each.
await sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
  select ulid_at(${base}::timestamptz + (i * interval '5 seconds'), i), case when i % 20 = 0 then 'P0000000000000000000000002' else 'P0000000000000000000000001' end, 'sandbox',
    case when i % 3 = 0 then 'order.delivered' else 'order.created' end, 'O' || lpad((i / 3)::text, 25, '0'), '{}'::jsonb,
    ${base}::timestamptz + (i * interval '5 seconds')
  from generate_series(1, 500000) i`;
await sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at, last_attempt_at)
  select ulid_at(${base}::timestamptz + (i * interval '5 seconds'), i), ulid_at(${base}::timestamptz + (i * interval '5 seconds'), i), 'S' || lpad(((i % 20) + 1)::text, 25, '0'),
    case when i % 3 = 0 then 'order.delivered' else 'order.created' end,
    (case when i % 97 = 0 then 'failed' else 'succeeded' end)::webhook_delivery_status, 2,
    ${base}::timestamptz + (i * interval '5 seconds'), now(), ${base}::timestamptz + (i * interval '5 seconds')
  from generate_series(1, 500000) i`;
await sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
  select ulid_at(${base}::timestamptz + (i * interval '5 seconds'), i * 2 + a), ulid_at(${base}::timestamptz + (i * interval '5 seconds'), i), a, 'scheduled',
    ${base}::timestamptz + (i * interval '5 seconds') + a * interval '1 second', 20,
    case when a = 1 or i % 97 = 0 then 500 else 200 end, case when a = 1 or i % 97 = 0 then 'http_status' end
  from generate_series(1, 500000) i, generate_series(1, 2) a`;
await sql`analyze`;
console.log(`seeded 500,000 deliveries, 1,000,000 attempts in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// As `npm start` runs (workers and console on, a JSON log line per request), with the log written to a file
// rather than this terminal.
const env = loadEnv({
  ...process.env,
  DATABASE_URL: pg.url,
  PORT: '0',
  CONSOLE: 'on',
  WORKERS: 'on',
  LOG_LEVEL: 'info',
  SECRET_ENCRYPTION_KEY: '00'.repeat(32),
  SEED_DEMO: 'false',
});
const logFile = path.join(tmpdir(), `pdp-big-history-${process.pid}.log`);
const svc = await startProcess(
  env,
  { web: true, workers: true },
  { log: createLogger(env.LOG_LEVEL, { destination: pino.destination(logFile) }) },
);
await createOperator({ ctx: cliContext(svc.rt), input: { email: 'b@example.com', password: 'benchmark-password', role: 'admin' } });
const login = await fetch(`${svc.url}/api/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'b@example.com', password: 'benchmark-password' }),
});
const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
const page = `edges { node { id eventType outcome url attempts { number responseStatus durationMs errorKind requestHeaders { name value } } } } pageInfo { hasNextPage endCursor }`;
const cases: [string, string][] = [
  ['no filter', '{}'],
  ['partner (the small one)', '{ partnerId: "P0000000000000000000000002" }'],
  ['subscription', '{ subscriptionId: "S0000000000000000000000003" }'],
  ['outcome failed', '{ outcome: failed }'],
  ['event type', '{ eventType: "order.delivered" }'],
  ['status 5xx', '{ statusClass: S5XX }'],
  ['last day', `{ since: "${new Date(Date.now() - 86_400_000).toISOString()}" }`],
  [
    'a day 20 days ago',
    `{ since: "${new Date(Date.now() - 20 * 86_400_000).toISOString()}", until: "${new Date(Date.now() - 19 * 86_400_000).toISOString()}" }`,
  ],
  ['order id', '{ orderId: "O0000000000000000000012345" }'],
];
for (const [name, filter] of cases) {
  const times: number[] = [];
  let rows = 0;
  let error = '';
  for (let i = 0; i < 4; i++) {
    const s = performance.now();
    const res = await fetch(`${svc.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ query: `{ deliveries(first: 50, filter: ${filter}) { ${page} } }` }),
    });
    const body = (await res.json()) as { data?: { deliveries: { edges: unknown[] } }; errors?: { message: string }[] };
    times.push(performance.now() - s);
    rows = body.data?.deliveries.edges.length ?? 0;
    error = body.errors?.[0]?.message ?? '';
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(28)} rows ${String(rows).padStart(2)}  median ${times[2]!.toFixed(0).padStart(6)} ms  max ${times[3]!.toFixed(0).padStart(6)} ms ${error}`,
  );
}
for (const [name, query] of [
  ['overview, last 24 h', '{ overview(windowMinutes: 1440) { successRate latestFailures(first: 10) { eventType } } }'],
  ['subscription health, 7 days', '{ subscriptionHealth(id: "S0000000000000000000000003", windowHours: 168) { consecutiveFailures } }'],
  ['partners with success rates', '{ partners(first: 25) { nodes { webhookSubscriptions { nodes { successRate { ratio } } } } } }'],
] as const) {
  const times: number[] = [];
  let error = '';
  for (let i = 0; i < 4; i++) {
    const s = performance.now();
    const res = await fetch(`${svc.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as { errors?: { message: string }[] };
    times.push(performance.now() - s);
    error = body.errors?.[0]?.message ?? '';
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(28)}          median ${times[2]!.toFixed(0).padStart(6)} ms  max ${times[3]!.toFixed(0).padStart(6)} ms ${error}`,
  );
}
await svc.stop();
await sql.end();
await pg.remove();
