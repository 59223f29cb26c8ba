import { sql, type SQL } from 'drizzle-orm';
import { decodeTime } from 'ulid';
import { withTransaction, type Ctx } from '../context';
import { idFloor } from '../ids';
import { hourOf, minuteRowsFrom } from './attempt-minutes';
import { weekPartitions } from './partitions';

/**
 * How far behind the clock the watermark stays. An attempt's id is made just before the statement that records it is
 * sent (server/delivery/record-outcomes.ts), so an id can reach the database, and commit, a little after the moment it
 * names: the pool's wait for a connection, the statement, a worker's clock a little off the database's. A pass that
 * moved the watermark past an id not yet committed would never count that attempt (the next pass starts above it), so
 * the watermark stops this far before now, and further back while a transaction of this database has been open longer
 * than this (see rollUpAttempts). Its price: the queries read up to this much plus a pass's interval of recent attempts
 * from webhook_attempts (the "tail"), which costs with the rate of attempts, never with the history's size.
 */
export const ROLLUP_MARGIN_MS = 60_000;

/**
 * Attempts counted per transaction: a catch-up over a long history holds no lock and no snapshot for long. Each
 * attempt's delivery is looked up by id (laterally, `offset 0` so the planner keeps it so): joined, it hashed every
 * week of deliveries for each chunk, so a catch-up cost chunks times deliveries (1,000,000 attempts: 83 s).
 */
const CHUNK = 50_000;

/** A rollup row's columns, in the order minuteRowsFrom and hourRowsFrom answer them; `at` names the row's start. */
const ROW_COLUMNS = (at: 'minute' | 'hour') =>
  sql.raw(`subscription_id, ${at}, attempts, succeeded, status_none, status_2xx, status_3xx, status_4xx, status_5xx,
    duration_bins, duration_counts, last_attempt_id`);

/** An upsert's SET adding the new counts (`excluded`) to a row already in `table`: counts summed, histograms merged by bin. */
function addingTo(table: 'webhook_attempt_minutes' | 'webhook_attempt_hours') {
  const t = sql.raw(table);
  const added = ['attempts', 'succeeded', 'status_none', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx'].map((c) =>
    sql.raw(`${c} = ${table}.${c} + excluded.${c}`),
  );
  return sql`${sql.join(added, sql`, `)},
    (duration_bins, duration_counts) = (
      select array_agg(bin order by bin), array_agg(n order by bin)::int[] from (
        select bin, sum(n) as n from (
          select * from unnest(${t}.duration_bins, ${t}.duration_counts)
          union all select * from unnest(excluded.duration_bins, excluded.duration_counts)
        ) both_rows (bin, n) group by bin
      ) merged),
    last_attempt_id = greatest(${t}.last_attempt_id, excluded.last_attempt_id)`;
}

/**
 * Minute rows (`minutes`, a relation of ROW_COLUMNS('minute')) summed per subscription and hour: counts added,
 * histograms merged by bin, the largest id kept. Migration 0018's backfill says the same in SQL (the test runs it).
 */
function hourRowsFrom(minutes: SQL): SQL {
  return sql`
    select c.subscription_id, c.hour, c.attempts, c.succeeded, c.status_none, c.status_2xx, c.status_3xx, c.status_4xx,
      c.status_5xx, coalesce(h.duration_bins, '{}'), coalesce(h.duration_counts, '{}'), c.last_attempt_id
    from (
      select subscription_id, ${hourOf(sql`minute`)} as hour, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded,
        sum(status_none)::int as status_none, sum(status_2xx)::int as status_2xx, sum(status_3xx)::int as status_3xx,
        sum(status_4xx)::int as status_4xx, sum(status_5xx)::int as status_5xx, max(last_attempt_id) as last_attempt_id
      from ${minutes} group by 1, 2
    ) c left join (
      select subscription_id, hour, array_agg(bin order by bin) as duration_bins, array_agg(n order by bin)::int[] as duration_counts
      from (
        select m.subscription_id, ${hourOf(sql`m.minute`)} as hour, u.bin, sum(u.n) as n
        from ${minutes} m, unnest(m.duration_bins, m.duration_counts) as u(bin, n) group by 1, 2, 3
      ) b group by 1, 2
    ) h using (subscription_id, hour)`;
}

/**
 * An id above every event of the attempts below `end`: an event is made before its deliveries' attempts (an hour's
 * slack for the clocks of several processes). Given as a literal, it leaves the weeks of deliveries after the chunk
 * out of the plan: a catch-up over old attempts probes only the weeks up to theirs.
 */
function eventsBefore(end: string): string {
  try {
    return idFloor(new Date(decodeTime(end) + 3_600_000));
  } catch {
    // Not a ULID (rows written by hand): no bound ('~' sorts after every id character).
    return '~';
  }
}

export interface RollupPass {
  /** Attempts counted by this pass. */
  attempts: number;
  /** Transactions it took (a chunk each). */
  chunks: number;
  /** The watermark it left: every attempt with a lower id is counted. */
  watermark: string;
  /** Whether it reached the margin; false when it stopped on its time budget (a catch-up: the next pass goes on). */
  caughtUp: boolean;
}

/**
 * The rollup pass (the maintenance job's, every minute): counts the attempts recorded since the last pass into
 * webhook_attempt_minutes, per subscription and minute they started in. Its effects, in one transaction per chunk of
 * CHUNK attempts by id:
 *
 * - the watermark row (webhook_attempt_rollup) is locked, so a second pass (another worker, a re-run) waits for this
 *   one and then starts where it ended: no attempt is counted twice;
 * - the attempts with an id from the watermark up to the new one are summed into their minutes' rows, added to a row
 *   already there (an attempt recorded after its minute was counted: a retry that ended late, a slow worker);
 * - in the same statement, the same minute rows summed per hour are added to webhook_attempt_hours, and per minute over
 *   every subscription to webhook_attempt_minute_totals: under the watermark, an hour's row is always the sum of its
 *   minutes' rows and a minute's total the sum of that minute's rows (the reads count on it to mix the grains);
 * - the watermark moves to the new id, which is never later than ROLLUP_MARGIN_MS before now, nor than that before the
 *   start of the oldest transaction open in this database (one that may be about to insert an attempt).
 *
 * Stops at the margin, or at the first chunk boundary after `budgetMs` (a catch-up continues at the next pass).
 */
export async function rollUpAttempts({ ctx, input = {} }: { ctx: Ctx; input?: { now?: Date; budgetMs?: number } }): Promise<RollupPass> {
  const started = Date.now();
  const budgetMs = input.budgetMs ?? Number.POSITIVE_INFINITY;
  const pass: RollupPass = { attempts: 0, chunks: 0, watermark: '', caughtUp: false };
  for (;;) {
    const chunk = await withTransaction(ctx, async (tx) => {
      const [mark] = await tx.db.execute<{ attempt_id: string }>(sql`select attempt_id from webhook_attempt_rollup for update`);
      if (!mark) throw new Error('webhook_attempt_rollup has no row: migration 0017 inserts it');
      const now = input.now ? sql`${input.now.toISOString()}::timestamptz` : sql`clock_timestamp()`;
      const [bound] = await tx.db.execute<{ target: string; chunk_end: string | null }>(sql`
        with target as (
          select pdp_id_floor(least(${now}, coalesce(min(xact_start), 'infinity'::timestamptz)) - ${`${ROLLUP_MARGIN_MS} milliseconds`}::interval) as id
          from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
            and xact_start is not null and state <> 'idle'
        )
        select t.id as target,
          (select a.id from webhook_attempts a where a.id >= ${mark.attempt_id} and a.id < t.id order by a.id offset ${CHUNK} limit 1) as chunk_end
        from target t`);
      const target = bound!.target;
      if (target <= mark.attempt_id) return { counted: 0, watermark: mark.attempt_id, done: true };
      const end = bound!.chunk_end ?? target;
      const counted = await addAttempts(tx, { from: mark.attempt_id, end });
      await tx.db.execute(sql`update webhook_attempt_rollup set attempt_id = ${end}, rolled_up_at = now()`);
      return { counted, watermark: end, done: end === target };
    });
    pass.attempts += chunk.counted;
    pass.watermark = chunk.watermark;
    if (chunk.counted > 0 || !chunk.done) pass.chunks++;
    if (chunk.done) {
      pass.caughtUp = true;
      return pass;
    }
    if (Date.now() - started >= budgetMs) return pass;
  }
}

/**
 * Adds the attempts with ids in [from, end) (of `subscriptionIds` only, when given) to the minutes, the hours and the
 * minute totals, in one statement: the three agree after it as before. Answers how many it counted.
 */
async function addAttempts(tx: Ctx, range: { from: string; end: string; subscriptionIds?: string[] }): Promise<number> {
  const { from, end, subscriptionIds } = range;
  const only = subscriptionIds ? sql` and d.subscription_id = any(${`{${subscriptionIds.join(',')}}`}::text[])` : sql``;
  const [counted] = await tx.db.execute<{ attempts: number }>(sql`
        with counted as materialized (${minuteRowsFrom(sql`from webhook_attempts a
          cross join lateral (select d.subscription_id from webhook_deliveries d
            where d.id = a.delivery_id and d.event_id < ${eventsBefore(end)}${only} offset 0) d
          where a.id >= ${from} and a.id < ${end}`)}
        ), minutes as (
        insert into webhook_attempt_minutes (${ROW_COLUMNS('minute')})
        select * from counted
        on conflict (subscription_id, minute) do update set ${addingTo('webhook_attempt_minutes')}
        ), hours as (
        insert into webhook_attempt_hours (${ROW_COLUMNS('hour')})
        ${hourRowsFrom(sql`counted`)}
        on conflict (subscription_id, hour) do update set ${addingTo('webhook_attempt_hours')}
        ), totals as (
        insert into webhook_attempt_minute_totals (minute, attempts, succeeded, last_attempt_id)
        select minute, sum(attempts)::int, sum(succeeded)::int, max(last_attempt_id) from counted group by minute
        on conflict (minute) do update set
          attempts = webhook_attempt_minute_totals.attempts + excluded.attempts,
          succeeded = webhook_attempt_minute_totals.succeeded + excluded.succeeded,
          last_attempt_id = greatest(webhook_attempt_minute_totals.last_attempt_id, excluded.last_attempt_id)
        )
        select coalesce(sum(attempts), 0)::int as attempts from counted`);
  return counted?.attempts ?? 0;
}

/**
 * History written under the watermark is never counted by a pass, which starts at the watermark: an import that gives
 * its rows ids of the moments they happened (the bench's seeding does, into a database whose service has counted up to
 * a minute ago). This counts the attempts of `subscriptionIds` under the watermark as it stands now, in chunks of
 * CHUNK; those at or above it are left to the passes, and a pass moving the watermark meanwhile counts only above the
 * bound read here. Once per import: a second call counts the same attempts again. Answers how many it counted.
 */
export async function rollUpImported({
  ctx,
  input,
}: {
  ctx: Ctx;
  /** `since`: no imported attempt is older. */
  input: { subscriptionIds: string[]; since: Date };
}): Promise<number> {
  const [mark] = await ctx.db.execute<{ attempt_id: string }>(sql`select attempt_id from webhook_attempt_rollup`);
  if (!mark) throw new Error('webhook_attempt_rollup has no row: migration 0017 inserts it');
  let total = 0;
  for (let from = idFloor(input.since); from < mark.attempt_id;) {
    const chunk = await withTransaction(ctx, async (tx) => {
      // Chunks of every attempt by id (the index alone answers it); the count takes the imported subscriptions' among them.
      const [bound] = await tx.db.execute<{ chunk_end: string | null }>(sql`
        select (select a.id from webhook_attempts a where a.id >= ${from} and a.id < ${mark.attempt_id}
          order by a.id offset ${CHUNK} limit 1) as chunk_end`);
      const end = bound!.chunk_end ?? mark.attempt_id;
      return { end, counted: await addAttempts(tx, { from, end, subscriptionIds: input.subscriptionIds }) };
    });
    total += chunk.counted;
    from = chunk.end;
  }
  return total;
}

/**
 * The rollup's retention follows the attempts': the minutes, hours and minute totals before the oldest week of
 * webhook_attempts still held (server/history/retain.ts drops weeks past EVENT_RETENTION_DAYS) are deleted, in the same
 * maintenance run that dropped the week: the subscriptions times the minutes they had attempts in, tens of thousands of
 * rows a week where the week of attempts held millions. A week starts on a whole hour, so no hour row straddles the
 * bound. One statement: the three agree after it as before. Answers the rows deleted (the three tables together).
 */
export async function retireAttemptMinutes({ ctx }: { ctx: Ctx }): Promise<number> {
  const [oldest] = await weekPartitions(ctx, 'webhook_attempts');
  if (!oldest) return 0;
  const before = sql`${oldest.start.toISOString()}::timestamptz`;
  const [deleted] = await ctx.db.execute<{ n: number }>(sql`
    with minutes as (delete from webhook_attempt_minutes where minute < ${before} returning 1),
      hours as (delete from webhook_attempt_hours where hour < ${before} returning 1),
      totals as (delete from webhook_attempt_minute_totals where minute < ${before} returning 1)
    select ((select count(*) from minutes) + (select count(*) from hours) + (select count(*) from totals))::int as n`);
  return deleted?.n ?? 0;
}
