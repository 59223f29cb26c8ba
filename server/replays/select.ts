import { sql, type SQL } from 'drizzle-orm';
import type { Ctx, Environment } from '../context';
import { OPERATIONAL_EVENT_TYPES } from '../events/catalog';
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

// The events a replay selects, by keyset on the event id (ULIDs sort by creation): never one query
// over the whole window. As isAudience (server/events/catalog.ts) decides for fan-out: webhook.test
// events are only ever the subscription's own, and operational events never those about itself. Events that
// left the retention window while the replay ran are not sent (server/history/window.ts).
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
      and e.id >= ${idFloor(new Date(w.since.getTime() - ID_SLACK_MS))} and e.id < ${idFloor(new Date(w.until.getTime() + ID_SLACK_MS))}
      and e.created_at >= ${oldestRetained(ctx.env).toISOString()}::timestamptz
      and e.created_at >= ${w.since.toISOString()}::timestamptz and e.created_at < ${w.until.toISOString()}::timestamptz
      and e.type = ${anyOf(w.types)}
      and (e.type <> 'webhook.test' or e.object_id = ${w.subscriptionId})
      and (not e.type = ${anyOf([...OPERATIONAL_EVENT_TYPES])} or e.object_id <> ${w.subscriptionId})
      and ${mode}`;
}

export async function countMatching(ctx: Ctx, w: ReplayWindow): Promise<number> {
  const [row] = await ctx.db.execute<{ n: number }>(sql`select count(*)::int as n ${matching(ctx, w)}`);
  return row?.n ?? 0;
}

export async function pageOfMatching(
  ctx: Ctx,
  w: ReplayWindow,
  after: string | null,
  limit: number,
): Promise<{ id: string; type: string }[]> {
  return ctx.db.execute<{ id: string; type: string }>(
    sql`select e.id, e.type ${matching(ctx, w)} ${after ? sql`and e.id > ${after}` : sql``} order by e.id limit ${limit}`,
  );
}
