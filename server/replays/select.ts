import { sql, type SQL } from 'drizzle-orm';
import type { Ctx, Environment } from '../context';
import { isAudience, OPERATIONAL_EVENT_TYPES } from '../events/catalog';
import { anyOf } from '@/db/lists';
import { oldestRetained } from '../history/window';
import { idFloor } from '../ids';

export interface ReplayWindow {
  partnerId: string;
  environment: Environment;
  subscriptionId: string;
  since: Date;
  until: Date;
  /** The types to replay: explicit, or all the subscription's filters accept. */
  types: string[];
  only: 'all' | 'failed' | 'missing';
}

// Events are stamped created_at in the transaction that made their id, so an id lies within this much of it:
// the window on ids too lets Postgres prune the weeks outside it (events are partitioned by id).
const ID_SLACK_MS = 3_600_000;

/**
 * The window's events by time, the weeks that can hold them by id, and none older than the retention window: a
 * replay running across the boundary skips the events that left it (server/history/window.ts).
 */
function inWindow(ctx: Ctx, w: ReplayWindow): SQL {
  return sql`e.id >= ${idFloor(new Date(w.since.getTime() - ID_SLACK_MS))} and e.id < ${idFloor(new Date(w.until.getTime() + ID_SLACK_MS))}
    and e.created_at >= ${oldestRetained(ctx.env).toISOString()}::timestamptz
    and e.created_at >= ${w.since.toISOString()}::timestamptz and e.created_at < ${w.until.toISOString()}::timestamptz`;
}

// The events a replay counts, in one statement: as isAudience (server/events/catalog.ts) decides for
// fan-out, webhook.test events are only ever the subscription's own, and operational events never those
// about itself; and as inMode below. The pages themselves (nextMatching) ask isAudience and inMode.
function matching(ctx: Ctx, w: ReplayWindow): SQL {
  const mode =
    w.only === 'all'
      ? sql`true`
      : w.only === 'failed'
        ? sql`d.status = 'failed'`
        : // Never sent to it: created before it existed (no delivery), or skipped while it was disabled.
          sql`(d.id is null or d.status = 'skipped')`;
  return sql`
    from events e
    left join webhook_deliveries d on d.event_id = e.id and d.subscription_id = ${w.subscriptionId}
    where e.partner_id = ${w.partnerId} and e.environment = ${w.environment}
      and ${inWindow(ctx, w)}
      and e.type = ${anyOf(w.types)}
      and (e.type <> 'webhook.test' or e.object_id = ${w.subscriptionId})
      and (not e.type = ${anyOf([...OPERATIONAL_EVENT_TYPES])} or e.object_id <> ${w.subscriptionId})
      and ${mode}`;
}

export async function countMatching(ctx: Ctx, w: ReplayWindow): Promise<number> {
  const [row] = await ctx.db.execute<{ n: number }>(sql`select count(*)::int as n ${matching(ctx, w)}`);
  return row?.n ?? 0;
}

// Events a page step reads, in id order by events_partner_env_id_idx, before the mode's test. One
// statement joining the window to the subscription's deliveries and keeping the first 200 matches was
// planned as a hash join of the whole window and a sort (Postgres cannot estimate the mode's filter on
// the joined row, so it assumes few rows pass): 0.4-0.6 s a page beside 130,000 events and 48,000 of the
// subscription's deliveries, which held a 100,000-event replay to 180 events/s (bench, 2026-11-26).
// Scanning a bounded run of events and probing the (event, subscription) index per event costs the same
// at any history size.
const SCAN = 1000;

export interface ScannedPage {
  /** The matching events, in id order, at most the limit asked for. */
  events: { id: string; type: string }[];
  /** Every event up to this id has been read (the replay's next cursor). */
  readTo: string | null;
  /** No event after `readTo` can match. */
  exhausted: boolean;
}

/** A page step's statement: the next SCAN events of the window after `after`, each with its delivery to the subscription's status. */
export function scanStatement(ctx: Ctx, w: ReplayWindow, after: string | null): SQL {
  // The probe names the subscription through an expression (`|| ''`), so that only the (event_id,
  // subscription_id) index can serve it: by the column itself, Postgres, whose statistics were taken
  // before the subscription had a delivery (the replay is making them), estimated it has one and read
  // the (subscription_id, id) index for each probe, filtering by event: every delivery the replay had
  // made so far, once per event. Pages grew from 16 ms to 1-15 s, quadratic in the replay's progress
  // (bench, 30,000 events, auto_explain, 2026-11-26). An event has one delivery per subscription at most.
  return sql`
    with scanned as materialized (
      select e.id, e.type, e.object_id from events e
      where e.partner_id = ${w.partnerId} and e.environment = ${w.environment}
        and ${inWindow(ctx, w)}
        and e.type = ${anyOf(w.types)} ${after ? sql`and e.id > ${after}` : sql``}
      order by e.id limit ${SCAN})
    select s.id, s.type, s.object_id,
      (select d.status from webhook_deliveries d where d.event_id = s.id and d.subscription_id || '' = ${w.subscriptionId}) as status
    from scanned s order by s.id`;
}

/**
 * The next matching events after `after`, reading at most SCAN of the window's events: a page may hold
 * fewer than `limit` (even none) and still not be the last; `exhausted` says when it is. Inside a transaction.
 */
export async function nextMatching(ctx: Ctx, w: ReplayWindow, after: string | null, limit: number): Promise<ScannedPage> {
  // Planned for this page's values, never the generic plan Postgres switches a prepared statement to
  // after five runs: that plan guesses the window holds a few rows, reads it by events_created_idx and
  // sorts it (0.2-0.7 s a page beside 100,000 events, bench 2026-11-26). `set local`: the callers run
  // in a transaction (a page's, a replay's creation), and the setting ends with it.
  await ctx.db.execute(sql`set local plan_cache_mode = force_custom_plan`);
  const rows = await ctx.db.execute<{ id: string; type: string; object_id: string; status: string | null }>(scanStatement(ctx, w, after));
  const audience = { id: w.subscriptionId, eventFilters: w.types };
  const events: ScannedPage['events'] = [];
  let readTo = after;
  for (const row of rows) {
    if (events.length === limit) return { events, readTo, exhausted: false };
    readTo = row.id;
    if (isAudience({ type: row.type, objectId: row.object_id }, audience) && inMode(w.only, row.status)) {
      events.push({ id: row.id, type: row.type });
    }
  }
  return { events, readTo, exhausted: rows.length < SCAN };
}

/** The first `limit` matching events of the window (a dry run's sample). */
export async function firstMatching(ctx: Ctx, w: ReplayWindow, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let after: string | null = null; ;) {
    const page = await nextMatching(ctx, w, after, limit - ids.length);
    ids.push(...page.events.map((e) => e.id));
    if (page.exhausted || ids.length === limit) return ids;
    after = page.readTo;
  }
}

/** The `only` modes, on the subscription's delivery of the event (null: none). */
function inMode(only: ReplayWindow['only'], status: string | null): boolean {
  if (only === 'all') return true;
  if (only === 'failed') return status === 'failed';
  // Never sent to it: created before it existed (no delivery), or skipped while it was disabled.
  return status === null || status === 'skipped';
}
