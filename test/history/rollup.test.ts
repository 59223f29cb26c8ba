import { readFileSync } from 'node:fs';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobContext } from '@/jobs/definition';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor, type Ctx } from '@/server/context';
import { countsSince, outcomesPerMinute } from '@/server/history/attempt-minutes';
import { binValue, DURATION_ERROR_BOUND, durationBin } from '@/server/history/duration-histogram';
import { makeWeek } from '@/server/history/partitions';
import { retireHistory } from '@/server/history/retain';
import { retireAttemptMinutes, rollUpAttempts, rollUpImported, ROLLUP_MARGIN_MS } from '@/server/history/rollup';
import { overview } from '@/server/metrics/overview';
import { subscriptionHealth } from '@/server/metrics/subscription-health';
import { createPartner } from '@/server/partners/create';
import { webhookSuccessRates } from '@/server/webhooks/success-rates';
import { createWebhook } from '@/server/webhooks/create';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';

// The per-minute rollup of webhook_attempts (issue 29): its rows agree exactly with the attempts they count, an attempt
// recorded after its minute was counted is added to that minute, a pass run again or twice at once counts nothing
// twice, the console's queries (rollup + head + tail) agree with the raw attempts at every moment, and the rollup's
// minutes leave with the attempts' weeks. Workers off: no scheduled pass runs but the test's.

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const STATUSES = [200, 201, 204, 302, 404, 410, 500, 503, null] as const;
const DURATIONS = [0, 1, 2, 3, 4, 7, 8, 20, 64, 99, 100, 250, 1000, 4096, 10_000, 29_999];

let svc: TestService;
let ctx: Ctx;
let subscriptions: string[];
/** Another subscription of the partner's, with `n` in its URL. */
let newSubscription: (n: number) => Promise<string>;
const now = Date.now();

interface Attempt {
  id: string;
  subscription: string;
  startedAt: number;
  ms: number;
  status: number | null;
}
const written: Attempt[] = [];
let seq = 0;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' }, { resolver: async () => ['93.184.215.14'] });
  ctx = jobContext(svc.rt, 'test.rollup');
  const operator = cliContext(svc.rt, 'test');
  const partner = await createPartner({ ctx: operator, input: { name: 'Rollup Couriers' } });
  newSubscription = async (n) =>
    (
      await createWebhook({
        ctx: actingFor(operator, { partnerId: partner.id, environment: 'sandbox' }),
        input: { url: `https://hooks.example.com/rollup/${n}` },
      })
    ).id;
  subscriptions = [];
  for (const n of [1, 2, 3]) subscriptions.push(await newSubscription(n));
});

/** Attempts as the engine writes them: each with its delivery, its id made `recordedAfterMs` after it started. */
async function record(attempts: { subscription: string; startedAt: number; recordedAfterMs?: number }[]): Promise<Attempt[]> {
  const rows = attempts.map((a) => {
    const n = seq++;
    const status = STATUSES[n % STATUSES.length]!;
    const ms = DURATIONS[(n * 7) % DURATIONS.length]!;
    return {
      ...a,
      id: ulid(a.startedAt + (a.recordedAfterMs ?? ms)),
      delivery: ulid(a.startedAt - 1000),
      event: ulid(a.startedAt - 2000),
      status,
      ms,
    };
  });
  for (const week of new Set(rows.map((r) => Math.floor(r.startedAt / DAY)))) await makeWeek(ctx, new Date(week * DAY));
  const iso = (ms: number) => new Date(ms).toISOString();
  await svc.rt.sql`insert into webhook_deliveries ${svc.rt.sql(
    rows.map((r) => ({
      id: r.delivery,
      event_id: r.event,
      subscription_id: r.subscription,
      event_type: 'order.created',
      status: 'succeeded',
      attempts: 1,
      last_attempt_at: iso(r.startedAt),
      created_at: iso(r.startedAt),
      updated_at: iso(r.startedAt),
    })),
  )}`;
  await svc.rt.sql`insert into webhook_attempts ${svc.rt.sql(
    rows.map((r) => ({
      id: r.id,
      delivery_id: r.delivery,
      attempt: 1,
      trigger: 'scheduled',
      started_at: iso(r.startedAt),
      duration_ms: r.ms,
      response_status: r.status,
      error_kind: r.status !== null && r.status < 300 ? null : r.status === null ? 'timeout' : 'http_status',
    })),
  )}`;
  const made = rows.map((r) => ({ id: r.id, subscription: r.subscription, startedAt: r.startedAt, ms: r.ms, status: r.status }));
  written.push(...made);
  return made;
}

/** `count` attempts spread over the minutes [fromMs, toMs), round the subscriptions. */
function spread(count: number, fromMs: number, toMs: number) {
  return Array.from({ length: count }, (_, i) => ({
    subscription: subscriptions[i % subscriptions.length]!,
    startedAt: Math.round(fromMs + ((toMs - fromMs) * i) / count),
  }));
}

const classOf = (status: number | null) =>
  status === null ? 'none' : status < 300 ? '2xx' : status < 400 ? '3xx' : status < 500 ? '4xx' : '5xx';
const succeeded = (a: Attempt) => a.status !== null && a.status < 300;

interface MinuteRow {
  subscription: string;
  minute: number;
  attempts: number;
  succeeded: number;
  none: number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  last: string;
  bins: number[];
  counts: number[];
}

const byKey = (x: MinuteRow, y: MinuteRow) => x.subscription.localeCompare(y.subscription) || x.minute - y.minute;

/** The rollup's rows as the attempts below the watermark say they must be, computed here from the rows written. */
/** A row of no attempts for a subscription and span, to count into. */
function emptyRow(at: { subscription: string; minute: number }): MinuteRow & { histogram: Map<number, number> } {
  return {
    ...at,
    attempts: 0,
    succeeded: 0,
    none: 0,
    '2xx': 0,
    '3xx': 0,
    '4xx': 0,
    '5xx': 0,
    last: '',
    bins: [],
    counts: [],
    histogram: new Map(),
  };
}

function expectedRows(watermark: string, kept: (a: Attempt) => boolean = () => true): MinuteRow[] {
  const rows = new Map<string, MinuteRow & { histogram: Map<number, number> }>();
  for (const a of written.filter((a) => a.id < watermark && kept(a))) {
    const minute = Math.floor(a.startedAt / MINUTE) * MINUTE;
    const key = `${a.subscription} ${minute}`;
    const row = rows.get(key) ?? emptyRow({ subscription: a.subscription, minute });
    rows.set(key, row);
    row.attempts++;
    if (succeeded(a)) row.succeeded++;
    row[classOf(a.status)]++;
    if (a.id > row.last) row.last = a.id;
    row.histogram.set(durationBin(a.ms), (row.histogram.get(durationBin(a.ms)) ?? 0) + 1);
  }
  return [...rows.values()]
    .map(({ histogram, ...r }) => {
      const sorted = [...histogram].sort(([x], [y]) => x - y);
      return { ...r, bins: sorted.map(([bin]) => bin), counts: sorted.map(([, n]) => n) };
    })
    .sort(byKey);
}

interface StoredRow {
  subscription_id: string;
  minute: Date;
  attempts: number;
  succeeded: number;
  status_none: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  duration_bins: number[];
  duration_counts: number[];
  last_attempt_id: string;
}

function asMinuteRow(r: StoredRow): MinuteRow {
  return {
    subscription: r.subscription_id,
    minute: new Date(r.minute).getTime(),
    attempts: r.attempts,
    succeeded: r.succeeded,
    none: r.status_none,
    '2xx': r.status_2xx,
    '3xx': r.status_3xx,
    '4xx': r.status_4xx,
    '5xx': r.status_5xx,
    last: r.last_attempt_id,
    bins: r.duration_bins,
    counts: r.duration_counts,
  };
}

async function storedRows(): Promise<MinuteRow[]> {
  const rows = await svc.rt.sql<StoredRow[]>`select * from webhook_attempt_minutes`;
  return rows.map(asMinuteRow).sort(byKey);
}

/** Rows summed to a coarser start (`startOf`), as hourRowsFrom and the totals do: counts added, histograms merged. */
function grouped(rows: MinuteRow[], startOf: (r: MinuteRow) => { subscription: string; minute: number }): MinuteRow[] {
  const out = new Map<string, MinuteRow & { histogram: Map<number, number> }>();
  for (const r of rows) {
    const at = startOf(r);
    const key = `${at.subscription} ${at.minute}`;
    const row = out.get(key) ?? emptyRow(at);
    out.set(key, row);
    for (const c of ['attempts', 'succeeded', 'none', '2xx', '3xx', '4xx', '5xx'] as const) row[c] += r[c];
    if (r.last > row.last) row.last = r.last;
    r.bins.forEach((bin, i) => row.histogram.set(bin, (row.histogram.get(bin) ?? 0) + r.counts[i]!));
  }
  return [...out.values()]
    .map(({ histogram, ...r }) => {
      const sorted = [...histogram].sort(([x], [y]) => x - y);
      return { ...r, bins: sorted.map(([bin]) => bin), counts: sorted.map(([, n]) => n) };
    })
    .sort(byKey);
}

async function storedHours(): Promise<MinuteRow[]> {
  const rows = await svc.rt.sql<StoredRow[]>`select *, hour as minute from webhook_attempt_hours`;
  return rows.map(asMinuteRow).sort(byKey);
}

/** The minute totals, as rows of no subscription with only attempts, succeeded and the last id. */
async function storedTotals() {
  const rows = await svc.rt.sql<{ minute: Date; attempts: number; succeeded: number; last_attempt_id: string }[]>`
    select * from webhook_attempt_minute_totals order by minute`;
  return rows.map((r) => ({ minute: new Date(r.minute).getTime(), attempts: r.attempts, succeeded: r.succeeded, last: r.last_attempt_id }));
}

/**
 * The rollup's three tables at a watermark: the minutes exactly the attempts below it (`kept`: those retention kept),
 * the hours those minutes summed per hour and the totals them summed per minute, every column (histograms included).
 */
async function expectRollup(watermark: string, kept?: (a: Attempt) => boolean): Promise<void> {
  const minutes = await storedRows();
  expect(minutes).toEqual(expectedRows(watermark, kept));
  expect(await storedHours()).toEqual(
    grouped(minutes, (r) => ({ subscription: r.subscription, minute: Math.floor(r.minute / HOUR) * HOUR })),
  );
  expect(await storedTotals()).toEqual(
    grouped(minutes, (r) => ({ subscription: '', minute: r.minute })).map((r) => ({
      minute: r.minute,
      attempts: r.attempts,
      succeeded: r.succeeded,
      last: r.last,
    })),
  );
}

async function watermark(): Promise<string> {
  const [row] = await svc.rt.sql<{ attempt_id: string }[]>`select attempt_id from webhook_attempt_rollup`;
  return row!.attempt_id;
}

/** What the console's queries must answer: counted here from every attempt written (rolled up or not). */
function rawSince(since: number, subscription?: string) {
  const of = written.filter((a) => a.startedAt >= since && (!subscription || a.subscription === subscription));
  return { attempts: of.length, succeeded: of.filter(succeeded).length, of };
}

/** The queries over windows starting mid-minute, on whole minutes, before any attempt, against the raw attempts. */
async function expectQueriesExact(): Promise<void> {
  const starts = [
    now - 20 * MINUTE + 30_000,
    now - 45 * MINUTE,
    Math.floor((now - 10 * MINUTE) / MINUTE) * MINUTE,
    now - 2 * DAY,
    now - 61 * DAY,
    // On an hour, and half a minute before one (the hour grain's boundary falls on the first whole minute).
    Math.floor(now / HOUR) * HOUR,
    Math.floor(now / HOUR) * HOUR - HOUR,
    Math.floor(now / HOUR) * HOUR - 30_000,
    Math.floor(now / HOUR) * HOUR - HOUR - 30_000,
    Math.floor(now / HOUR) * HOUR - HOUR + 17 * MINUTE + 5_000,
  ];
  for (const since of starts) {
    const counts = await countsSince(
      ctx,
      subscriptions.map((subscriptionId) => ({ subscriptionId, since: new Date(since) })),
    );
    for (const s of subscriptions) {
      const raw = rawSince(since, s);
      expect(counts.get(s) ?? { attempts: 0, succeeded: 0 }, `${s} since ${new Date(since).toISOString()}`).toEqual({
        attempts: raw.attempts,
        succeeded: raw.succeeded,
      });
    }
    const perMinute = await outcomesPerMinute(ctx, new Date(since));
    const mine = rawSince(since).of;
    const expected = new Map<number, { succeeded: number; failed: number }>();
    for (const a of mine) {
      const m = Math.floor(a.startedAt / MINUTE) * MINUTE;
      const e = expected.get(m) ?? { succeeded: 0, failed: 0 };
      if (succeeded(a)) e.succeeded++;
      else e.failed++;
      expected.set(m, e);
    }
    expect(perMinute.map((r) => [new Date(r.minute).getTime(), { succeeded: r.succeeded, failed: r.failed }])).toEqual(
      [...expected].sort(([x], [y]) => x - y),
    );
  }

  // Streaks (each subscription from its own moment) in one read.
  const own = subscriptions.map((subscriptionId, i) => ({ subscriptionId, since: new Date(now - (10 + 7 * i) * MINUTE + 17_000) }));
  const streaks = await countsSince(ctx, own);
  for (const { subscriptionId, since } of own)
    expect(streaks.get(subscriptionId)?.attempts ?? 0).toBe(rawSince(since.getTime(), subscriptionId).attempts);

  // The verbs, over their own windows (ending now), each starting on a whole minute: no head to read.
  const operator = cliContext(svc.rt, 'test');
  const o = await overview({ ctx: operator, input: { windowMinutes: 60 } });
  expect(o.since.getTime() % MINUTE).toBe(0);
  const inOverview = rawSince(o.since.getTime());
  expect({ attempts: o.attempts, succeeded: o.perMinute.reduce((n, m) => n + m.succeeded, 0) }).toEqual({
    attempts: inOverview.attempts,
    succeeded: inOverview.succeeded,
  });
  const rates = await webhookSuccessRates({ ctx, input: { subscriptionIds: subscriptions, hours: 1 } });
  expect(rates.get(subscriptions[0]!)!.since.getTime() % MINUTE).toBe(0);
  for (const s of subscriptions) {
    const raw = rawSince(rates.get(s)!.since.getTime(), s);
    expect({ attempts: rates.get(s)!.attempts, succeeded: rates.get(s)!.succeeded }).toEqual({
      attempts: raw.attempts,
      succeeded: raw.succeeded,
    });
  }
  // A subscription's health at minute grain (1 h: 2-minute buckets) and hour grain (7 days: 240-minute buckets on whole
  // hours from the hour the window starts in), each bucket against the attempts it spans.
  for (const windowHours of [1, 168]) {
    const health = await subscriptionHealth({ ctx: operator, input: { id: subscriptions[0]!, windowHours } });
    expect(health.since.getTime() % MINUTE).toBe(0);
    const inHealth = rawSince(health.since.getTime(), subscriptions[0]);
    expect({ attempts: health.attempts, succeeded: health.succeeded }).toEqual({
      attempts: inHealth.attempts,
      succeeded: inHealth.succeeded,
    });
    const classes = new Map<string, number>();
    for (const a of inHealth.of) classes.set(classOf(a.status), (classes.get(classOf(a.status)) ?? 0) + 1);
    expect(new Map(health.statusClasses.map((c) => [c.statusClass, c.attempts]))).toEqual(classes);
    // p50/p95 per bucket: percentile_cont over the exact durations, within the bins' error bound (and a rounding).
    for (const bucket of health.buckets) {
      const end = bucket.start.getTime() + health.bucketMinutes * MINUTE;
      const inBucket = inHealth.of.filter((a) => a.startedAt >= bucket.start.getTime() && a.startedAt < end);
      const durations = inBucket.map((a) => a.ms).sort((x, y) => x - y);
      expect({ attempts: bucket.attempts, succeeded: bucket.succeeded }).toEqual({
        attempts: inBucket.length,
        succeeded: inBucket.filter(succeeded).length,
      });
      for (const [q, got] of [
        [0.5, bucket.p50DurationMs],
        [0.95, bucket.p95DurationMs],
      ] as const) {
        const at = q * (durations.length - 1);
        const exact = durations[Math.floor(at)]! + (at - Math.floor(at)) * (durations[Math.ceil(at)]! - durations[Math.floor(at)]!);
        expect(Math.abs(got! - exact), `p${q * 100} ${got} against ${exact}`).toBeLessThanOrEqual(
          exact * DURATION_ERROR_BOUND + 0.5 + 1e-9,
        );
      }
    }
    if (windowHours === 168) {
      expect(health.bucketMinutes).toBe(240);
      const origin = Math.floor(health.since.getTime() / HOUR) * HOUR;
      for (const bucket of health.buckets) expect((bucket.start.getTime() - origin) % (240 * MINUTE)).toBe(0);
      expect(health.buckets.length).toBeGreaterThan(0);
    }
  }
}

describe('the attempts rollup', () => {
  it('bins durations as SQL does, each within the error bound of its value', async () => {
    const ms = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 99, 100, 128, 1000, 1024, 4096, 10_000, 29_999, 60_000];
    const [row] = await svc.rt.sql<
      { bins: number[] }[]
    >`select array_agg(pdp_duration_bin(x) order by o) as bins from unnest(${ms}::int[]) with ordinality u(x, o)`;
    expect(row!.bins).toEqual(ms.map(durationBin));
    for (const m of ms.filter((m) => m > 0))
      expect(Math.abs(binValue(durationBin(m)) - m) / m).toBeLessThanOrEqual(DURATION_ERROR_BOUND + 1e-12);
  });

  it('counts every attempt below its watermark once, per subscription and minute, and a pass run again counts nothing', async () => {
    // 60 days ago (a week retention drops later), the last 50 minutes, six attempts inside one minute (a window starts
    // halfway through it), and a few an hour and a half ago.
    await record(spread(30, now - 61 * DAY, now - 60 * DAY));
    await record(spread(600, now - 50 * MINUTE, now - 2 * MINUTE));
    const minute = Math.floor((now - 20 * MINUTE) / MINUTE) * MINUTE;
    await record([5, 15, 25, 35, 45, 55].map((s, i) => ({ subscription: subscriptions[i % 3]!, startedAt: minute + s * 1000 })));
    await record(spread(12, now - 95 * MINUTE, now - 85 * MINUTE));

    // Before any pass every attempt is in the tail.
    await expectQueriesExact();

    const first = await rollUpAttempts({ ctx, input: { now: new Date(now - 5 * MINUTE) } });
    expect(first.caughtUp).toBe(true);
    const mark = await watermark();
    expect(mark).toBe(first.watermark);
    expect(first.attempts).toBe(written.filter((a) => a.id < mark).length);
    expect(first.attempts).toBeGreaterThan(500);
    await expectRollup(mark);
    await expectQueriesExact();

    const again = await rollUpAttempts({ ctx, input: { now: new Date(now - 5 * MINUTE) } });
    expect(again).toMatchObject({ attempts: 0, watermark: mark, caughtUp: true });
    await expectRollup(mark);
  });

  it('adds an attempt recorded after its minute was counted to that minute, and the queries agree with the attempts meanwhile', async () => {
    const before = await watermark();
    // Started in minutes already counted, recorded after that pass (a late retry, a slow worker): ids above its
    // watermark. The last is recorded after the next pass's watermark too: it stays in the tail.
    const late = await record([
      { subscription: subscriptions[0]!, startedAt: now - 30 * MINUTE + 1_000, recordedAfterMs: 25 * MINUTE - 20_000 },
      { subscription: subscriptions[1]!, startedAt: now - 20 * MINUTE + 40_000, recordedAfterMs: 15 * MINUTE },
      { subscription: subscriptions[2]!, startedAt: now - 7 * MINUTE, recordedAfterMs: 3 * MINUTE + 30_000 },
    ]);
    expect(late.every((a) => a.id > before)).toBe(true);
    await expectQueriesExact();

    const pass = await rollUpAttempts({ ctx, input: { now: new Date(now - 3 * MINUTE) } });
    const mark = await watermark();
    expect(pass.attempts).toBe(written.filter((a) => a.id >= before && a.id < mark).length);
    expect(late.filter((a) => a.id < mark)).toHaveLength(2);
    await expectRollup(mark);
    await expectQueriesExact();
  });

  it('two passes at once count each attempt once; a pass stops a margin before now', async () => {
    const before = await watermark();
    await record(spread(300, now - 4 * MINUTE, now - 150_000).map((a) => ({ ...a, recordedAfterMs: 20_000 })));
    // Both passes held up at once: a transaction holds the rollup table against writes until both wait on a lock
    // (the first on the table, the second on the watermark row the first holds), then lets them go.
    let release!: () => void;
    const blocker = svc.rt.sql.begin(async (tx) => {
      await tx`lock table webhook_attempt_minutes in share mode`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await waitFor('the blocking lock', async () => {
      const [row] = await svc.rt.sql<{ n: number }[]>`select count(*)::int as n from pg_locks
        where relation = 'webhook_attempt_minutes'::regclass and mode = 'ShareLock' and granted`;
      return row!.n === 1;
    });
    const running = Promise.all([0, 1].map(() => rollUpAttempts({ ctx, input: { now: new Date(now - MINUTE) } })));
    await waitFor('both passes waiting on a lock', async () => {
      const [row] = await svc.rt.sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      return row!.n === 2;
    });
    release();
    await blocker;
    const passes = await running;
    const mark = await watermark();
    expect(passes[0]!.attempts + passes[1]!.attempts).toBe(written.filter((x) => x.id >= before && x.id < mark).length);
    expect(passes[0]!.attempts + passes[1]!.attempts).toBeGreaterThanOrEqual(300);
    await expectRollup(mark);
    await expectQueriesExact();

    // As the job runs it: up to the margin before the database's clock, and not past it.
    await record(spread(30, Date.now() - 40_000, Date.now() - 10_000).map((a) => ({ ...a, recordedAfterMs: 1_000 })));
    await rollUpAttempts({ ctx });
    const latest = await watermark();
    expect(latest <= ulid(Date.now() - ROLLUP_MARGIN_MS + 1_000)).toBe(true);
    expect(latest >= ulid(Date.now() - ROLLUP_MARGIN_MS - 30_000)).toBe(true);
    await expectRollup(latest);
    await expectQueriesExact();
  });

  it('counts attempts imported under the watermark once, of the imported subscriptions only; a pass then counts none of them again', async () => {
    const mark = await watermark();
    const imported = [await newSubscription(4), await newSubscription(5)];
    // Back-dated, as an import (the bench's seeding) writes them: ids of the moments they happened, under the watermark;
    // and two recorded after it, which the passes count.
    const since = now - 3 * HOUR;
    const under = await record(
      Array.from({ length: 90 }, (_, i) => ({ subscription: imported[i % 2]!, startedAt: since + i * MINUTE, recordedAfterMs: 500 })),
    );
    const above = await record(imported.map((subscription) => ({ subscription, startedAt: Date.now() - 20_000, recordedAfterMs: 500 })));
    // Under the watermark too, of a subscription not imported: it is not counted.
    const [other] = await record([{ subscription: subscriptions[0]!, startedAt: since + 30_500, recordedAfterMs: 500 }]);
    expect([...under, other!].every((a) => a.id < mark) && above.every((a) => a.id > mark)).toBe(true);

    const counted = await rollUpImported({ ctx, input: { subscriptionIds: imported, since: new Date(since) } });
    expect(counted).toBe(under.length);
    expect(await watermark()).toBe(mark);
    await expectRollup(mark, (a) => a !== other);

    await rollUpAttempts({ ctx });
    const after = await watermark();
    expect(after > mark).toBe(true);
    await expectRollup(after, (a) => a !== other);
    // Left as the other tests expect the history: every attempt under the watermark counted.
    await svc.rt.sql`delete from webhook_attempts where id = ${other!.id}`;
    written.splice(written.indexOf(other!), 1);
    await expectQueriesExact();
  });

  it("migration 0018's backfill makes the hours and minute totals the pass made, from the minutes alone", async () => {
    const migration = readFileSync(new URL('../../db/migrations/0018_attempt_hours.sql', import.meta.url), 'utf8');
    const backfill = migration
      .split('--> statement-breakpoint')
      .map((statement) => statement.replace(/^--.*$/gm, '').trim())
      .filter((statement) => statement.startsWith('INSERT INTO'));
    expect(backfill).toHaveLength(2);
    const mark = await watermark();
    const [hours, totals] = [await storedHours(), await storedTotals()];
    expect(hours.length).toBeGreaterThan(3);
    await svc.rt.sql.begin(async (tx) => {
      await tx`delete from webhook_attempt_hours`;
      await tx`delete from webhook_attempt_minute_totals`;
      for (const statement of backfill) await tx.unsafe(statement);
    });
    expect(await storedHours()).toEqual(hours);
    expect(await storedTotals()).toEqual(totals);
    await expectRollup(mark);
  });

  it('drops the minutes, hours and minute totals of the weeks of attempts retention dropped, and keeps the others', async () => {
    const retired = await retireHistory({ ctx });
    expect(retired.dropped.some((p) => p.startsWith('webhook_attempts_w'))).toBe(true);
    const deleted = await retireAttemptMinutes({ ctx });
    expect(deleted).toBeGreaterThan(0);
    const mark = await watermark();
    await expectRollup(mark, (a) => a.startedAt > now - 40 * DAY);
    expect(await retireAttemptMinutes({ ctx })).toBe(0);
  });
});
