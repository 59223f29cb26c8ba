import { sql } from 'drizzle-orm';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobContext } from '@/jobs/definition';
import type { Ctx } from '@/server/context';
import { makeWeek, makeWeeksAhead, WEEKS_AHEAD } from '@/server/history/partitions';
import { retireHistory } from '@/server/history/retain';
import { idFloor } from '@/server/ids';
import { scanStatement } from '@/server/replays/select';
import { latestStatus } from '@/server/webhooks/search-deliveries';
import { clientFor, expectStatus, newSubscription } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Retention by partition (issue 29): whole weeks past EVENT_RETENTION_DAYS (30 here) are detached and dropped, every
// row inside the window stays, a delivery still retrying holds its week, and windows before the oldest retained
// moment are refused. Workers off: the scheduled maintenance job must not retire what a test is looking at.

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const WEEK = 7 * DAY;
let svc: TestService;
let ctx: Ctx;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  ctx = jobContext(svc.rt, 'test.retention');
});

/** The Monday 00:00 UTC a moment's week begins. */
function weekStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
}

/** The week as partition names spell it. */
function weekOf(at: number): string {
  return new Date(weekStart(at)).toISOString().slice(0, 10).replaceAll('-', '');
}

async function subscriptionOf(who: TestPartner): Promise<string> {
  return (await newSubscription(who, { url: 'https://localhost:9/hooks' })).id;
}

/** An event `ageMs` old in its week's partitions, with a delivery and two attempts made a second and two after it. */
async function seed(who: TestPartner, subscription: string, at: number, status = 'succeeded') {
  await makeWeek(ctx, new Date(at));
  const row = { event: ulid(at), delivery: ulid(at + 1000), attempts: [ulid(at + 2000), ulid(at + 3000)] };
  const envelope = { id: row.event, object: 'event', created: Math.floor(at / 1000), livemode: false, type: 'order.created', data: {} };
  await svc.rt.sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
    values (${row.event}, ${who.partnerId}, 'sandbox', 'order.created', ${ulid(at)}, ${JSON.stringify(envelope)}::jsonb, ${iso(at)}::timestamptz)`;
  await svc.rt
    .sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
    values (${row.delivery}, ${row.event}, ${subscription}, 'order.created', ${status}::webhook_delivery_status, 2,
      ${status === 'pending' ? iso(Date.now() + 3_600_000) : null}::timestamptz, ${iso(at + 1000)}::timestamptz, ${iso(at + 1000)}::timestamptz)`;
  for (const [i, id] of row.attempts.entries()) {
    await svc.rt.sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
      values (${id}, ${row.delivery}, ${i + 1}, 'scheduled', ${iso(at + 2000 + i * 1000)}::timestamptz, 20, 500, 'http_status')`;
  }
  return row;
}

async function present(row: Awaited<ReturnType<typeof seed>>): Promise<boolean[]> {
  const [found] = await svc.rt.sql<{ e: boolean; d: boolean; a: number }[]>`
    select exists (select 1 from events where id = ${row.event}) as e,
      exists (select 1 from webhook_deliveries where id = ${row.delivery}) as d,
      (select count(*)::int from webhook_attempts where id = any(string_to_array(${row.attempts.join(',')}, ','))) as a`;
  return [found!.e, found!.d, found!.a === 2];
}

async function partitionsOf(table: string): Promise<string[]> {
  const rows = await svc.rt.sql<{ name: string }[]>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${table}::regclass order by 1`;
  return rows.map((r) => r.name);
}

describe('retention by partition', () => {
  it('drops the weeks past the window whole, and keeps every row inside it', async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    const now = Date.now();
    const ages = [60, 50, 45, 40, 38, 36, 33, 31, 29, 25, 15, 8, 1].map((d) => d * DAY);
    const rows = [];
    for (const age of ages) rows.push({ age, at: now - age, row: await seed(who, sub, now - age) });

    const retired = await retireHistory({ ctx, now });
    // A week leaves once its end is an hour past the window (retain.ts MARGIN_MS).
    const cutoff = now - 30 * DAY - 3_600_000;
    const leaves = ({ at }: { at: number }) => weekStart(at) + WEEK <= cutoff;
    for (const r of rows) {
      const gone = leaves(r);
      expect(await present(r.row), `${r.age / DAY} days old`).toEqual([!gone, !gone, !gone]);
      if (r.age <= 30 * DAY) expect(gone).toBe(false);
      if (r.age > 38 * DAY) expect(gone).toBe(true);
    }
    const droppedWeeks = [...new Set(rows.filter(leaves).map((r) => weekOf(r.at)))];
    expect(droppedWeeks.length).toBeGreaterThanOrEqual(3);
    for (const table of ['events', 'webhook_deliveries', 'webhook_attempts']) {
      for (const week of droppedWeeks) expect(retired.dropped).toContain(`${table}_w${week}`);
      const left = await partitionsOf(table);
      expect(left.filter((p) => droppedWeeks.some((w) => p.endsWith(w)))).toEqual([]);
      expect(left).toContain(`${table}_w${weekOf(now - 29 * DAY)}`);
      expect(left).toContain(`${table}_default`);
    }
    expect(retired).toMatchObject({ heldBy: null, busy: false });
    // Dropped, not deleted: nothing of those weeks waits in a default partition.
    const [strays] = await svc.rt.sql<{ n: number }[]>`select count(*)::int as n from events_default where partner_id = ${who.partnerId}`;
    expect(strays!.n).toBe(0);
  });

  it('keeps the week of a delivery still retrying across the boundary until its retries end', async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    const now = Date.now();
    const retrying = await seed(who, sub, now - 45 * DAY, 'pending');
    const later = await seed(who, sub, now - 38 * DAY);
    const week = `webhook_deliveries_w${weekOf(now - 45 * DAY)}`;

    const held = await retireHistory({ ctx, now });
    expect(held.heldBy).toBe(week);
    expect(await present(retrying)).toEqual([true, true, true]);
    // The weeks after it wait for it too (the oldest retained moment only moves forward).
    expect(await present(later)).toEqual([true, true, true]);

    await svc.rt.sql`update webhook_deliveries set status = 'failed', next_attempt_at = null where id = ${retrying.delivery}`;
    const released = await retireHistory({ ctx, now });
    expect(released.heldBy).toBeNull();
    expect(released.dropped).toContain(week);
    expect(await present(retrying)).toEqual([false, false, false]);
    expect(await present(later)).toEqual([false, false, false]);
  });

  it('makes the current week and the next ones ahead, moving rows that fell into the default partition into their week', async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    // A week no job made yet: its rows land in the default partitions, and lose nothing.
    const future = Date.now() + (WEEKS_AHEAD + 2) * WEEK;
    const event = ulid(future);
    await svc.rt.sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      values (${event}, ${who.partnerId}, 'sandbox', 'order.created', ${event}, '{}'::jsonb, now())`;
    await svc.rt.sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, created_at, updated_at)
      values (${ulid()}, ${event}, ${sub}, 'order.created', 'pending', now(), now())`;
    const where = async () =>
      (
        await svc.rt.sql<{ e: string; d: string }[]>`
        select (select tableoid::regclass::text from events where id = ${event}) as e,
          (select tableoid::regclass::text from webhook_deliveries where event_id = ${event}) as d`
      )[0];
    expect(await where()).toEqual({ e: 'events_default', d: 'webhook_deliveries_default' });

    await makeWeeksAhead(ctx);
    for (const table of ['events', 'webhook_deliveries', 'webhook_attempts']) {
      const parts = await partitionsOf(table);
      for (let w = 0; w <= WEEKS_AHEAD; w++) expect(parts).toContain(`${table}_w${weekOf(Date.now() + w * WEEK)}`);
    }
    await makeWeek(ctx, new Date(future));
    expect(await where()).toEqual({ e: `events_w${weekOf(future)}`, d: `webhook_deliveries_w${weekOf(future)}` });
  });

  it('bounds each week by the id floor server/ids.ts makes', async () => {
    for (const at of [new Date(0), new Date('2026-11-23T00:00:00Z'), new Date(Date.now()), new Date('2099-12-31T23:59:59.999Z')]) {
      const [row] = await svc.rt.sql<{ floor: string }[]>`select pdp_id_floor(${at.toISOString()}::timestamptz) as floor`;
      expect(row!.floor).toBe(idFloor(at));
    }
  });

  it('prunes to one week where a statement names the key', async () => {
    const id = ulid();
    const plan = async (q: string) =>
      (await svc.rt.sql.unsafe<{ 'QUERY PLAN': string }[]>(`explain (costs off) ${q}`)).map((r) => r['QUERY PLAN']).join('\n');
    const week = weekOf(Date.now());
    const scanned = (plan: string, table: string) => [...plan.matchAll(new RegExp(` on (${table}_\\w+)`, 'g'))].map((m) => m[1]);
    expect(scanned(await plan(`select * from events where id = '${id}'`), 'events')).toEqual([`events_w${week}`]);
    // Fan-out's conflict target.
    expect(
      scanned(await plan(`select id from webhook_deliveries where event_id = '${id}' and subscription_id = 'x'`), 'webhook_deliveries'),
    ).toEqual([`webhook_deliveries_w${week}`]);
  });
});

describe("the deliveries search's latest status (the status class filters)", () => {
  it("reads the attempts of a delivery's own week and later ones only, and finds the latest", async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    const now = Date.now();
    for (const age of [29, 22, 15, 8]) await seed(who, sub, now - age * DAY);
    const recent = await seed(who, sub, now - 1000 * 60);
    await svc.rt.sql`update webhook_attempts set response_status = 503 where id = ${recent.attempts[1]!}`;
    const statement = sql`select ${latestStatus} as status from webhook_deliveries where id = ${recent.delivery}`;
    const [row] = await svc.rt.db.execute<{ status: number }>(statement);
    expect(row!.status).toBe(503);
    const plan = (
      await svc.rt.db.execute<{ 'QUERY PLAN': string }>(sql`explain (analyze, costs off, timing off, summary off) ${statement}`)
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    // Probed: attempt partitions whose scan ran (a pruned one is left out of the plan or never executed).
    const probed = plan
      .split('\n')
      .filter((line) => / on webhook_attempts_w\d+/.test(line) && !line.includes('never executed'))
      .map((line) => / on (webhook_attempts_w\d+)/.exec(line)![1]);
    expect(probed.length, plan).toBeGreaterThan(0);
    for (const age of [29, 22, 15, 8]) {
      if (weekOf(now - age * DAY) !== weekOf(now)) expect(probed, plan).not.toContain(`webhook_attempts_w${weekOf(now - age * DAY)}`);
    }
  });
});

describe("a replay page's probe of its deliveries", () => {
  it('reads the (event, subscription) index, even for a subscription the statistics have never seen', async () => {
    const who = await createTestPartner(svc);
    const [seen, fresh] = [await subscriptionOf(who), await subscriptionOf(who)];
    // Another subscription's deliveries, then statistics with none of the replayed one's: what a replay's pages meet.
    const at = Date.now() - DAY;
    await svc.rt.sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at)
      select 'dlv_' || g, left(${ulid(at)}, 10) || lpad(g::text, 16, '0'), ${seen}, 'order.created', 'succeeded', 1, now(), now()
      from generate_series(1, 5000) g`;
    await svc.rt.sql`analyze webhook_deliveries`;
    const window = { partnerId: who.partnerId, environment: 'sandbox' as const, subscriptionId: fresh, since: new Date(at - DAY) };
    const statement = scanStatement(ctx, { ...window, until: new Date(), types: ['order.created'], only: 'missing' }, null);
    const plan = await svc.rt.db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_custom_plan`);
      return (await tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${statement}`)).map((r) => r['QUERY PLAN']).join('\n');
    });
    // By the subscription's own index, each probe would read every delivery the replay had made so far.
    expect(plan, plan).toMatch(/webhook_deliveries_\w+_event_id_subscription_id_idx/);
    expect(plan, plan).not.toMatch(/webhook_deliveries_\w+_subscription_id_id_idx/);
  });
});

describe('windows before the oldest retained moment', () => {
  it('refuses a replay reaching before it with a 422 that names it, and accepts one inside it', async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    const now = Math.floor(Date.now() / 1000);
    const api = clientFor(who);
    const params = { path: { id: sub } };
    const res = await api.POST('/partner/webhooks/{id}/replay', { params, body: { since: now - 31 * 86_400, until: now - 2 * 86_400 } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(422);
    const error = res.error!.error;
    expect(error).toMatchObject({ code: 'history_not_retained', param: 'since' });
    // A detail of this error the document's envelope does not list.
    const oldest = (error as { oldest_retained?: number }).oldest_retained!;
    expect(Math.abs(oldest - (now - 30 * 86_400))).toBeLessThan(60);
    expect(error.message).toContain(new Date(oldest * 1000).toISOString().slice(0, 16));
    expectStatus(200, await api.POST('/partner/webhooks/{id}/replay', { params, body: { since: now - 29 * 86_400, dry_run: true } }));
  });

  it('refuses to redeliver an event past the window, even while its week is still stored', async () => {
    const who = await createTestPartner(svc);
    const sub = await subscriptionOf(who);
    const old = await seed(who, sub, Date.now() - 33 * DAY);
    const res = await clientFor(who).POST('/partner/events/{id}/redeliver', {
      params: { path: { id: old.event } },
      body: { webhook_id: sub },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(422);
    expect(res.error?.error).toMatchObject({ code: 'history_not_retained', param: 'id' });
    const [delivery] = await svc.rt.sql<{ status: string }[]>`select status from webhook_deliveries where id = ${old.delivery}`;
    expect(delivery!.status).toBe('succeeded');
  });
});
