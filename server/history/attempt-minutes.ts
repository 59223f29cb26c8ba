import { sql, type SQL } from 'drizzle-orm';
import type { Ctx } from '../context';
import { attemptIdFloor } from '../ids';

// How the console's aggregates read attempts (issue 29): closed minutes from the rollup (webhook_attempt_minutes), and
// from webhook_attempts only what the rollup does not hold. A window starting at `since` is, exactly:
//   - the rollup's rows of the minutes from `since` rounded up to a whole minute: attempts with an id below the watermark;
//   - the head, when `since` falls inside a minute: that minute's attempts from `since` on with an id up to its rows'
//     last_attempt_id (so below the watermark), read from webhook_attempts;
//   - the tail: attempts with an id at or above the watermark (the last minute or two), read from webhook_attempts.
// At hour grain the rollup's part is itself split at the first whole hour at or after that first whole minute: the
// minute rows before it, then the hour rows (webhook_attempt_hours) from it on. The pass adds to an hour row in the same
// statement as to its minutes' rows, so under the watermark an hour row is exactly the sum of its minutes' rows: the
// hours from that boundary on hold the same attempts as the minutes from it on, and nothing before the boundary.
// The three never share an attempt, and each reads the watermark and the rows in one statement (one snapshot), so a
// rollup pass committing meanwhile can neither hide an attempt nor count it twice. Attempt ids are made when the
// attempt is recorded, never more than a minute before it started (server/ids.ts attemptIdFloor), which bounds the
// head's and the tail's id ranges from below.

/**
 * Where a window of the last `ms` starts: the whole minute at or before now - ms, so its first minute comes whole from
 * the rollup. A window starting inside a minute reads that minute from webhook_attempts for every subscription (the
 * rollup counts whole minutes and attempts carry no subscription), each attempt probed for its delivery in every week:
 * whatever the whole system did in the minute a day ago, every console request paid for it (46,632 attempts in a
 * replay's minute cost a streak count 1,160 ms, issue 29).
 */
export function windowStart(ms: number, now = Date.now()): Date {
  return new Date(Math.floor((now - ms) / 60_000) * 60_000);
}

/** The minute a moment falls in, whatever the session's time zone. */
export function minuteOf(at: SQL): SQL {
  return sql`date_bin('1 minute'::interval, ${at}, '2000-01-01T00:00:00Z'::timestamptz)`;
}

/** The whole UTC hour a moment falls in (the rollup's hour rows start there). */
export function hourOf(at: SQL): SQL {
  return sql`date_bin('1 hour'::interval, ${at}, '2000-01-01T00:00:00Z'::timestamptz)`;
}

/**
 * Attempts `a` joined with their delivery `d` summed per subscription and minute into the rollup's columns. The rollup
 * pass and the queries' head and tail both count through it, so they agree. `from` is a FROM clause (with its WHERE)
 * naming `a` and `d`.
 */
export function minuteRowsFrom(from: SQL): SQL {
  return sql`
    select subscription_id, minute, sum(n)::int as attempts, sum(ok)::int as succeeded,
      sum(c_none)::int as status_none, sum(c_2xx)::int as status_2xx, sum(c_3xx)::int as status_3xx,
      sum(c_4xx)::int as status_4xx, sum(c_5xx)::int as status_5xx,
      array_agg(bin order by bin) as duration_bins, array_agg(n order by bin)::int[] as duration_counts, max(last_id) as last_attempt_id
    from (
      select d.subscription_id, ${minuteOf(sql`a.started_at`)} as minute, pdp_duration_bin(a.duration_ms) as bin, count(*)::int as n,
        count(*) filter (where a.error_kind is null) as ok,
        count(*) filter (where a.response_status is null) as c_none,
        count(*) filter (where a.response_status < 300) as c_2xx,
        count(*) filter (where a.response_status >= 300 and a.response_status < 400) as c_3xx,
        count(*) filter (where a.response_status >= 400 and a.response_status < 500) as c_4xx,
        count(*) filter (where a.response_status >= 500) as c_5xx,
        max(a.id) as last_id
      ${from}
      group by 1, 2, 3
    ) per_bin
    group by subscription_id, minute`;
}

/** As minuteRowsFrom without the durations (empty histograms): for counts alone, a third of the work. */
function minuteCountsFrom(from: SQL): SQL {
  return sql`
    select d.subscription_id, ${minuteOf(sql`a.started_at`)} as minute, count(*)::int as attempts,
      count(*) filter (where a.error_kind is null)::int as succeeded,
      count(*) filter (where a.response_status is null)::int as status_none,
      count(*) filter (where a.response_status < 300)::int as status_2xx,
      count(*) filter (where a.response_status >= 300 and a.response_status < 400)::int as status_3xx,
      count(*) filter (where a.response_status >= 400 and a.response_status < 500)::int as status_4xx,
      count(*) filter (where a.response_status >= 500)::int as status_5xx,
      '{}'::smallint[] as duration_bins, '{}'::int[] as duration_counts, max(a.id) as last_attempt_id
    ${from}
    group by 1, 2`;
}

/** The columns of a minute row, in the order minuteRowsFrom answers them. */
export const MINUTE_COLUMNS = sql.raw(
  'subscription_id, minute, attempts, succeeded, status_none, status_2xx, status_3xx, status_4xx, status_5xx, duration_bins, duration_counts',
);

/** An hour row's columns after its subscription and hour, as MINUTE_COLUMNS names them. */
const HOUR_COUNTS = sql.raw(
  'h.attempts, h.succeeded, h.status_none, h.status_2xx, h.status_3xx, h.status_4xx, h.status_5xx, h.duration_bins, h.duration_counts',
);

/** A subscription and the moment its window starts. */
export interface MinuteScope {
  subscriptionId: string;
  since: Date;
}

/**
 * The minute rows (MINUTE_COLUMNS; a subscription and minute may come in up to three rows: rollup, head and tail) of
 * each scope's subscription, counting exactly its attempts started at or after its `since`. At `grain: 'hour'` the
 * rollup's whole hours from the first hour boundary at or after the first whole minute come as one row each, its
 * `minute` the hour's start (see the top of this file for why that is exact): a reader bins them into whole hours. Scopes sharing a `since`
 * share one read of the head. A subquery: select from it and sum, within a statement made by readCounted, which gives
 * `seen`. Every read is by index, per scope or per attempt (lateral, `offset 0` so the planner keeps it so: flattened
 * into joins, it hashed the whole rollup and every week of deliveries, 250 ms at 200,000 attempts). A scope's minutes
 * are bounded as rows, (id, from) <= (subscription_id, minute) <= (id, infinity), which only the primary key serves: given the minute
 * alone, the planner preferred the minute index (its rows lie in heap order) and read every subscription's minutes
 * of the window for each scope (20 subscriptions, 24 h, 1,000,000 attempts: 460 ms against 20 ms).
 */
export function attemptMinutes(
  scopes: readonly MinuteScope[],
  seen: string,
  { durations = true, grain = 'minute' }: { durations?: boolean; grain?: 'minute' | 'hour' } = {},
): SQL {
  const json = JSON.stringify(scopes.map((s) => ({ id: s.subscriptionId, since: s.since.toISOString() })));
  const earliest = new Date(Math.min(...scopes.map((s) => s.since.getTime())));
  const floor = attemptIdFloor(earliest);
  return sql`(
    with scope as materialized (
      select x.id, x.since, ${minuteOf(sql`x.since`)} as head,
        ${minuteOf(sql`x.since + interval '1 minute' - interval '1 microsecond'`)} as rolled_from,
        ${hourOf(sql`x.since + interval '1 hour' - interval '1 microsecond'`)} as hours_from
      from jsonb_to_recordset(${json}::jsonb) as x(id text, since timestamptz)
    ), starts as materialized (
      select since, head, rolled_from,
        (select max(m.last_attempt_id) from scope s2 cross join lateral (
          select m.last_attempt_id from webhook_attempt_minutes m where m.subscription_id = s2.id and m.minute = g.head offset 0) m
          where s2.since = g.since) as top
      from (select distinct since, head, rolled_from from scope) g
      where rolled_from > since
    ), raw as (
      select t.since as head_of, a.* from starts t cross join lateral (
        select a.id, a.delivery_id, a.started_at, a.duration_ms, a.response_status, a.error_kind from webhook_attempts a
        where a.id >= ${floor} and a.id >= pdp_id_floor(t.since - interval '1 minute') and a.id <= t.top
          and a.started_at >= t.since and a.started_at < t.rolled_from
        offset 0
      ) a
      union all
      select null, a.id, a.delivery_id, a.started_at, a.duration_ms, a.response_status, a.error_kind from webhook_attempts a
      where a.id >= ${seen > floor ? seen : floor} and a.id >= (select r.attempt_id from webhook_attempt_rollup r)
        and a.started_at >= ${earliest.toISOString()}::timestamptz
    )
    select ${MINUTE_COLUMNS} from scope s cross join lateral (
      select * from webhook_attempt_minutes m
      where (m.subscription_id, m.minute) >= (s.id, s.rolled_from) and ${
        grain === 'hour'
          ? sql`(m.subscription_id, m.minute) < (s.id, s.hours_from)`
          : sql`(m.subscription_id, m.minute) <= (s.id, 'infinity')`
      }
      offset 0) m
    union all${
      grain === 'hour'
        ? sql`
    select s.id, h.hour, ${HOUR_COUNTS} from scope s cross join lateral (
      select * from webhook_attempt_hours h
      where (h.subscription_id, h.hour) >= (s.id, s.hours_from) and (h.subscription_id, h.hour) <= (s.id, 'infinity')
      offset 0) h
    union all`
        : sql``
    }
    select ${MINUTE_COLUMNS} from (${(durations ? minuteRowsFrom : minuteCountsFrom)(sql`
      from raw a cross join lateral (select d.subscription_id from webhook_deliveries d where d.id = a.delivery_id offset 0) d
        join scope s on s.id = d.subscription_id and a.started_at >= s.since and (a.head_of is null or a.head_of = s.since)`)}) counted
  )`;
}

/** The rollup's watermark as a statement reads it, beside what it answers: readCounted checks it against `seen`. */
export const ROLLUP_MARK = sql`(select attempt_id from webhook_attempt_rollup)`;

/**
 * Runs a statement over attemptMinutes or outcomesPerMinute, whose answer's one row carries ROLLUP_MARK as `mark`.
 * The watermark is read first so the statement can name it as a literal: the planner then reads the tail by a range
 * of the primary key in the current week (given only the statement's own read of the watermark it estimated a third
 * of every week and read them all). The statement still counts from the watermark it reads itself (its snapshot's),
 * which is never below the one read first, except when the reads were sent to a lagging replica and the primary in
 * turn (db/read-route.ts routes each statement): then it runs again with the lower one.
 */
export async function readCounted<T extends object>(ctx: Ctx, statement: (seen: string) => SQL): Promise<T> {
  const [first] = await ctx.read.execute<{ attempt_id: string }>(sql`select attempt_id from webhook_attempt_rollup`);
  let seen = first?.attempt_id ?? '';
  for (let tries = 0; ; tries++) {
    const [row] = await ctx.read.execute<T & { mark: string }>(statement(seen));
    if (!row) throw new Error('a rollup statement answered no row');
    if (row.mark >= seen) return row as unknown as T;
    seen = tries < 2 ? row.mark : '';
  }
}

export interface AttemptCount {
  attempts: number;
  succeeded: number;
}

/**
 * Each scope's attempts started at or after its `since`, and how many succeeded, by subscription (absent: none). Read
 * at hour grain: a day's success rate or a long streak sums tens of hour rows, not hundreds of minutes.
 */
export async function countsSince(ctx: Ctx, scopes: readonly MinuteScope[]): Promise<Map<string, AttemptCount>> {
  if (scopes.length === 0) return new Map();
  const { counts } = await readCounted<{ counts: { subscription_id: string; attempts: number; succeeded: number }[] }>(
    ctx,
    (seen) => sql`
      select ${ROLLUP_MARK} as mark, coalesce(json_agg(c), '[]') as counts from (
        select subscription_id, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded
        from ${attemptMinutes(scopes, seen, { durations: false, grain: 'hour' })} m group by subscription_id) c`,
  );
  return new Map(counts.map((r) => [r.subscription_id, { attempts: r.attempts, succeeded: r.succeeded }]));
}

/**
 * Every subscription's attempts started at or after `since`, succeeded and failed per minute (the overview): the
 * closed minutes from webhook_attempt_minute_totals (each the sum of that minute's rows of every subscription, kept by
 * the same statement of the pass: a day is at most 1,440 rows however many subscriptions there are, where summing
 * webhook_attempt_minutes read 16,801 rows for 20 of them), and the head and tail counted straight from
 * webhook_attempts, bounded as attemptMinutes bounds them.
 */
export async function outcomesPerMinute(ctx: Ctx, since: Date): Promise<{ minute: Date; succeeded: number; failed: number }[]> {
  const at = since.toISOString();
  const floor = attemptIdFloor(since);
  const head = minuteOf(sql`${at}::timestamptz`);
  const rolledFrom = minuteOf(sql`${at}::timestamptz + interval '1 minute' - interval '1 microsecond'`);
  // As three arrays, the minutes as epoch seconds: a day's 1,440 objects with ISO times cost the statement a quarter
  // more in JSON than the reads (1,000,000 attempts, interleaved, load ~4: p50 6.6 against 4.9 ms).
  const { minutes } = await readCounted<{ minutes: { at: number[]; succeeded: number[]; failed: number[] } }>(
    ctx,
    (seen) => sql`
      select ${ROLLUP_MARK} as mark, json_build_object(
        'at', coalesce(array_agg(extract(epoch from m.minute)::bigint order by m.minute), '{}'),
        'succeeded', coalesce(array_agg(m.succeeded order by m.minute), '{}'),
        'failed', coalesce(array_agg(m.failed order by m.minute), '{}')) as minutes from (
        select minute, sum(succeeded)::int as succeeded, sum(failed)::int as failed from (
          select minute, succeeded, attempts - succeeded as failed
          from webhook_attempt_minute_totals where minute >= ${rolledFrom}
          union all
          select ${minuteOf(sql`a.started_at`)}, count(*) filter (where a.error_kind is null), count(*) filter (where a.error_kind is not null)
          from webhook_attempts a
          where a.id >= ${floor} and a.id <= (select last_attempt_id from webhook_attempt_minute_totals where minute = ${head})
            and a.started_at >= ${at}::timestamptz and a.started_at < ${rolledFrom}
          group by 1
          union all
          select ${minuteOf(sql`a.started_at`)}, count(*) filter (where a.error_kind is null), count(*) filter (where a.error_kind is not null)
          from webhook_attempts a
          where a.id >= ${seen > floor ? seen : floor} and a.id >= (select attempt_id from webhook_attempt_rollup)
            and a.started_at >= ${at}::timestamptz
          group by 1
        ) x group by minute) m`,
  );
  return minutes.at.map((at, i) => ({ minute: new Date(at * 1000), succeeded: minutes.succeeded[i]!, failed: minutes.failed[i]! }));
}
