import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Ctx } from '@/server/context';
import { rollUpAttempts, rollUpImported } from '@/server/history/rollup';
import { newId } from '@/server/ids';
import { CREATED_EVENT, findTransition, HAPPY_PATH } from '@/server/orders/state-machine';

// A large webhook history written straight into the tables with set-based SQL (a million attempts in
// seconds, where the service's own paths would take hours): partners of their own, their subscriptions,
// events over `days` days, one delivery each with two attempts, and a few orders whose events are
// among them (for the console's order timeline). Rows of other partners are left alone, so it may
// share a database with other scenarios.

export interface HistoryPartner {
  name: string;
  subscriptions: number;
  /** Its share of the orders, against the other partners' weights (19 and 1: 95 % and 5 %). */
  weight: number;
}

export interface HistoryOptions {
  /** Events, deliveries (one per event) and twice as many attempts. */
  events: number;
  /** Over how many days up to a minute ago, evenly spaced (the retention job deletes events after 30). */
  days: number;
  /** Default: a big partner with 19 subscriptions and 95 % of the orders, a small one with 1 and 5 %. */
  partners?: HistoryPartner[];
  /** In the partners' names, subscription URLs and orders' external ids. */
  tag: string;
  /** A line per table seeded (default: console.log). */
  log?: (line: string) => void;
}

export interface SeededHistory {
  tag: string;
  /** In the order of `partners`. */
  partnerIds: string[];
  /** Per partner, in the order of `partners`. */
  subscriptionIds: string[][];
  /** An order (of the first partner) with every event of the happy path, each delivered with two attempts. */
  sampleOrderId: string;
  /** Every order row made (the sample and the newest complete orders). */
  orderIds: string[];
  events: number;
  attempts: number;
  /** The rollup pass over the seeded attempts (server/history/rollup.ts), as the service's job would have run it. */
  rollup: { attempts: number; seconds: number };
  /** The first and the last event's time. */
  from: Date;
  to: Date;
  seconds: number;
}

export const DEFAULT_HISTORY_PARTNERS: HistoryPartner[] = [
  { name: 'History, big', subscriptions: 19, weight: 19 },
  { name: 'History, small', subscriptions: 1, weight: 1 },
];

/** Every delivery with i % FAILED_EVERY = 0 failed (both attempts answered 500); the others succeeded at the second attempt. */
export const FAILED_EVERY = 97;

/** The happy path's events, in order: each order has one event per step. */
const STEPS = HAPPY_PATH.map((status, n) => ({
  status,
  event: n === 0 ? CREATED_EVENT.type : findTransition(HAPPY_PATH[n - 1]!, status)!.event,
}));

const KIND = { event: 1n, delivery: 2n, attempt: 3n, order: 4n, quote: 5n } as const;

/**
 * Seeds the history into `sql`'s database and returns what it made. Event i (0 ≤ i < events) is step
 * i % 6 of order i / 6 (the happy path's six steps, created to delivered); order k belongs to a partner picked by k modulo the weights' sum; each event
 * goes to one of its partner's subscriptions in turn. Ids are ULIDs of their row's time (as the
 * service makes them, so id ranges are time ranges), their random part a counter under a random prefix.
 */
export async function seedHistory(sql: postgres.Sql, options: HistoryOptions): Promise<SeededHistory> {
  const { events, days, tag } = options;
  const partners = options.partners ?? DEFAULT_HISTORY_PARTNERS;
  const log = options.log ?? console.log;
  if (!Number.isInteger(events) || events < STEPS.length) throw new Error(`seedHistory: events must be an integer >= ${STEPS.length}`);
  if (!(days > 0 && days < 30)) throw new Error('seedHistory: days must be above 0 and below 30 (the retention job deletes older events)');
  if (partners.length === 0 || partners.some((p) => p.subscriptions < 1 || !Number.isInteger(p.weight) || p.weight < 1))
    throw new Error('seedHistory: every partner needs a subscription and an integer weight >= 1');

  const started = performance.now();
  let last = started;
  const done = (what: string) => {
    const now = performance.now();
    log(`  ${what}: ${((now - last) / 1000).toFixed(1)} s`);
    last = now;
  };

  // A random prefix of the ids' counter part: seeding twice never makes the same id.
  const run = BigInt(randomInt(1, 2 ** 20)) << 40n;
  const key = (kind: bigint) => String(run + (kind << 36n));
  const stepMs = (days * 86_400_000) / events;
  const to = new Date(Date.now() - 60_000);
  const from = new Date(to.getTime() - (events - 1) * stepMs);
  const base = from.toISOString();
  // The time of event `i` (an SQL integer expression): one expression everywhere, so ids made from it agree.
  const at = (i: postgres.PendingQuery<postgres.Row[]>) =>
    sql`(${base}::timestamptz + (${i})::float8 * ${stepMs}::float8 * interval '1 millisecond')`;

  const partnerIds = partners.map(() => newId());
  const subscriptionIds = partners.map((p) => Array.from({ length: p.subscriptions }, () => newId()));
  // Order k's partner (1-based): buckets[k % buckets.length]; event i's subscription: flat[first[p] + i % count[p]].
  const buckets = partners.flatMap((p, n) => Array<number>(p.weight).fill(n + 1));
  const flat = subscriptionIds.flat();
  const first = subscriptionIds.map((_, n) => 1 + subscriptionIds.slice(0, n).reduce((a, s) => a + s.length, 0));
  const count = subscriptionIds.map((s) => s.length);
  const intArray = (xs: number[]) => `{${xs.join(',')}}`;
  const textArray = (xs: string[]) => `{${xs.join(',')}}`;
  const partnerOf = (k: postgres.PendingQuery<postgres.Row[]>) => sql`(${intArray(buckets)}::int[])[(${k}) % ${buckets.length} + 1]`;
  const subscriptionOf = (i: postgres.PendingQuery<postgres.Row[]>) =>
    sql`(${textArray(flat)}::text[])[(${intArray(first)}::int[])[${partnerOf(sql`(${i}) / ${STEPS.length}`)}] + (${i}) % (${intArray(count)}::int[])[${partnerOf(sql`(${i}) / ${STEPS.length}`)}]]`;
  const i = sql`i`;

  // ULIDs as the service makes them: the creation time's 10 characters, then a unique tail.
  await sql`create or replace function ulid_at(ts timestamptz, n bigint) returns text language plpgsql immutable as $$
    declare ms bigint := floor(extract(epoch from ts) * 1000); alphabet text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; t text := '';
    begin for i in 1..10 loop t := substr(alphabet, (ms % 32)::int + 1, 1) || t; ms := ms / 32; end loop;
    return t || lpad(upper(to_hex(n)), 16, '0'); end $$`;

  await sql`insert into partners ${sql(
    partners.map((p, n) => ({ id: partnerIds[n]!, name: `${p.name} (${tag})` })),
    'id',
    'name',
  )}`;
  const since = new Date(from.getTime() - 10 * 86_400_000);
  await sql`insert into webhook_subscriptions ${sql(
    subscriptionIds.flatMap((ids, n) =>
      ids.map((id, m) => ({
        id,
        partner_id: partnerIds[n]!,
        environment: 'sandbox',
        url: `https://example.com/history/${encodeURIComponent(tag)}/${n + 1}/${m + 1}`,
        event_filters: '[]',
        status: 'enabled',
        // Never decrypted: every delivery is done, so no worker sends to it.
        secret_sealed: 'not sealed',
        previous_secrets: '[]',
        created_at: since,
        updated_at: since,
      })),
    ),
  )}`;
  done(`${partners.length} partners, ${flat.length} subscriptions`);

  const typeArray = textArray(STEPS.map((s) => s.event));
  const orderId = (k: postgres.PendingQuery<postgres.Row[]>) =>
    sql`ulid_at(${at(sql`(${k}) * ${STEPS.length}`)}, ${key(KIND.order)}::bigint + (${k}))`;
  // The history's weeks first (the tables are partitioned a week a partition): rows no week holds would fill the
  // default partition, which no query prunes to.
  await sql`select count(*) from generate_series(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz + interval '7 days',
    interval '7 days') w, lateral pdp_history_week(w)`;
  await sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
    select ulid_at(${at(i)}, ${key(KIND.event)}::bigint + i), (${textArray(partnerIds)}::text[])[${partnerOf(sql`i / ${STEPS.length}`)}], 'sandbox',
      (${typeArray}::text[])[i % ${STEPS.length} + 1], ${orderId(sql`i / ${STEPS.length}`)}, '{}'::jsonb, ${at(i)}
    from generate_series(0, ${events - 1}) i`;
  done(`${events.toLocaleString('en-US')} events`);

  await sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at, last_attempt_at)
    select ulid_at(${at(i)}, ${key(KIND.delivery)}::bigint + i), ulid_at(${at(i)}, ${key(KIND.event)}::bigint + i), ${subscriptionOf(i)},
      (${typeArray}::text[])[i % ${STEPS.length} + 1], (case when i % ${FAILED_EVERY} = 0 then 'failed' else 'succeeded' end)::webhook_delivery_status, 2,
      ${at(i)}, ${at(i)} + interval '2.1 seconds', ${at(i)} + interval '2 seconds'
    from generate_series(0, ${events - 1}) i`;
  done(`${events.toLocaleString('en-US')} deliveries`);

  await sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind, resolved_address)
    select ulid_at(${at(i)} + a * interval '1 second', ${key(KIND.attempt)}::bigint + i * 2 + a), ulid_at(${at(i)}, ${key(KIND.delivery)}::bigint + i), a,
      'scheduled', ${at(i)} + a * interval '1 second', 20 + i % 80,
      case when a = 1 or i % ${FAILED_EVERY} = 0 then 500 else 200 end, case when a = 1 or i % ${FAILED_EVERY} = 0 then 'http_status' end,
      '93.184.215.14'
    from generate_series(0, ${events - 1}) i, generate_series(1, 2) a`;
  done(`${(events * 2).toLocaleString('en-US')} attempts`);

  // Orders: the sample (the first partner's, halfway through the history) and the newest few; only
  // orders with all their events, so none is left open (the sandbox sweep would cancel it).
  const complete = Math.floor(events / STEPS.length);
  const bucketOf = (k: number) => buckets[k % buckets.length]!;
  let sample = Math.floor(complete / 2);
  while (bucketOf(sample) !== 1) sample++;
  const ks = [...new Set([sample, ...Array.from({ length: 9 }, (_, n) => complete - 1 - n).filter((k) => k >= 0)])];
  const quoteAt = (k: postgres.PendingQuery<postgres.Row[]>) => sql`(${at(sql`(${k}) * ${STEPS.length}`)} - interval '30 seconds')`;
  const quoteId = (k: postgres.PendingQuery<postgres.Row[]>) => sql`ulid_at(${quoteAt(k)}, ${key(KIND.quote)}::bigint + (${k}))`;
  const k = sql`k`;
  await sql`insert into quotes (id, partner_id, environment, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng, distance_meters, fee_amount,
      fee_currency, duration_seconds, pickup_eta, dropoff_eta, expires_at, created_at, used_at)
    select ${quoteId(k)}, (${textArray(partnerIds)}::text[])[${partnerOf(k)}], 'sandbox', 40.7484, -73.9857, 40.758, -73.9855, 1062, 743, 'USD', 900,
      ${quoteAt(k)} + interval '5 minutes', ${quoteAt(k)} + interval '20 minutes', ${quoteAt(k)} + interval '15 minutes', ${quoteAt(k)}, ${at(sql`k * ${STEPS.length}`)}
    from unnest(${intArray(ks)}::int[]) k`;
  const statusArray = textArray(STEPS.map((s) => s.status));
  await sql`insert into orders (id, partner_id, environment, status, quote_id, external_id, pickup, dropoff, fee_amount, fee_currency, courier,
      status_history, metadata, created_at, updated_at)
    select ${orderId(k)}, (${textArray(partnerIds)}::text[])[${partnerOf(k)}], 'sandbox', 'delivered', ${quoteId(k)}, 'history-' || ${tag} || '-' || k,
      '{"lat": 40.7484, "lng": -73.9857, "contact": null, "instructions": null}'::jsonb,
      '{"lat": 40.758, "lng": -73.9855, "contact": null, "instructions": null}'::jsonb, 743, 'USD',
      '{"id": "courier_history", "name": "Sam Courier", "phone": "+15555550100", "vehicle": "bicycle"}'::jsonb,
      (select jsonb_agg(jsonb_build_object('status', (${statusArray}::text[])[j + 1], 'at', floor(extract(epoch from ${at(sql`k * ${STEPS.length} + j`)}))::bigint) order by j)
        from generate_series(0, ${STEPS.length - 1}) j),
      '{}'::jsonb, ${at(sql`k * ${STEPS.length}`)}, ${at(sql`k * ${STEPS.length} + ${STEPS.length - 1}`)}
    from unnest(${intArray(ks)}::int[]) k`;
  done(`${ks.length} orders and their quotes`);

  const [row] = await sql<{ id: string }[]>`select ${orderId(sql`${sample}::int`)} as id`;

  // Vacuumed as well as analysed, as a database that has lived with this history would be: otherwise
  // autovacuum's first pass over a million new rows would land in the middle of the measurements.
  // The per-minute rollup the console's aggregates read, made as the maintenance job makes it (every minute, by
  // attempt id) but all at once: a database that lived through this history would have it.
  // The attempts under the watermark first: on a database whose service has already counted up to a minute ago
  // (the scenarios before this one in a run), no pass would count them (1,000,000 seeded, 78,965 counted, 2026-11-26).
  const rolledFrom = performance.now();
  const imported = await rollUpImported({ ctx: rollupContext(sql), input: { subscriptionIds: flat, since: from } });
  const pass = await rollUpAttempts({ ctx: rollupContext(sql) });
  const rollup = { attempts: imported + pass.attempts, seconds: (performance.now() - rolledFrom) / 1000 };
  done(
    `rollup of ${rollup.attempts.toLocaleString('en-US')} attempts: ${imported.toLocaleString('en-US')} under the service's watermark, ` +
      `then a pass of ${pass.chunks} chunks`,
  );

  await sql`vacuum (analyze) events, webhook_deliveries, webhook_attempts, webhook_subscriptions, partners, orders, quotes, webhook_attempt_minutes, webhook_attempt_hours, webhook_attempt_minute_totals`;
  done('vacuum and analyze');

  return {
    tag,
    partnerIds,
    subscriptionIds,
    sampleOrderId: row!.id,
    orderIds: await Promise.all(ks.map(async (n) => (await sql<{ id: string }[]>`select ${orderId(sql`${n}::int`)} as id`)[0]!.id)),
    events,
    attempts: events * 2,
    rollup,
    from,
    to,
    seconds: (performance.now() - started) / 1000,
  };
}

/** rollUpAttempts needs only a database (its statements and transactions) from its ctx: the seeder's connection. */
function rollupContext(sql: postgres.Sql): Ctx {
  return { db: drizzle(sql), inTransaction: false } as unknown as Ctx;
}

/** Deletes what seedHistory made (on a database that outlives the bench). */
export async function removeHistory(sql: postgres.Sql, seeded: SeededHistory): Promise<void> {
  const subscriptions = `{${seeded.subscriptionIds.flat().join(',')}}`;
  const partners = `{${seeded.partnerIds.join(',')}}`;
  await sql`delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where subscription_id = any(${subscriptions}::text[]))`;
  await sql`delete from webhook_deliveries where subscription_id = any(${subscriptions}::text[])`;
  await sql`delete from events where partner_id = any(${partners}::text[])`;
  await sql`delete from orders where partner_id = any(${partners}::text[])`;
  await sql`delete from quotes where partner_id = any(${partners}::text[])`;
  // The minute totals hold every subscription's attempts together: the minutes these subscriptions had rows in are
  // summed again from the other subscriptions' rows.
  await sql`delete from webhook_attempt_hours where subscription_id = any(${subscriptions}::text[])`;
  await sql`delete from webhook_attempt_minute_totals t using (select distinct minute from webhook_attempt_minutes
    where subscription_id = any(${subscriptions}::text[])) m where t.minute = m.minute`;
  await sql`insert into webhook_attempt_minute_totals (minute, attempts, succeeded, last_attempt_id)
    select minute, sum(attempts)::int, sum(succeeded)::int, max(last_attempt_id) from webhook_attempt_minutes
    where minute in (select minute from webhook_attempt_minutes where subscription_id = any(${subscriptions}::text[]))
      and subscription_id <> all(${subscriptions}::text[])
    group by minute`;
  await sql`delete from webhook_attempt_minutes where subscription_id = any(${subscriptions}::text[])`;
  await sql`delete from webhook_subscriptions where partner_id = any(${partners}::text[])`;
  await sql`delete from partners where id = any(${partners}::text[])`;
}
