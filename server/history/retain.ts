import { sql } from 'drizzle-orm';
import { withTransaction, type Ctx } from '../context';
import { idFloor } from '../ids';
import { analyzeHistory, isLockTimeout, weekEnd, weekPartitions, type WeekPartition } from './partitions';
import { oldestRetained } from './window';

// A week leaves an hour after its last moment passed the window, not at once: events past the window are never
// reopened (webhooks/resend.ts asks window.ts with its own clock), and the hour keeps a reopen that began just
// before the window moved from committing after the pending check below looked.
const MARGIN_MS = 3_600_000;

// DETACH takes the parent's ACCESS EXCLUSIVE lock: every engine statement on the table waits behind it. Under the
// deadlock timeout (1 s), so that when an engine transaction holds one table and waits for the other, this side
// gives up first; the next run (15 minutes) tries again.
const LOCK_TIMEOUT = '500ms';

export interface Retired {
  /** The partitions dropped, oldest first. */
  dropped: string[];
  /** The week of deliveries kept because one of them is still pending (every later week waits for it). */
  heldBy: string | null;
  /** Rows past the window deleted from the default partitions (rows no week was made for). */
  defaultRows: number;
  /** A DETACH gave up on a busy table; the rest waits for the next run. */
  busy: boolean;
}

/**
 * Retention by partition: events, deliveries and attempts leave EVENT_RETENTION_DAYS after they were made, a week
 * at a time, by DETACH and DROP of whole partitions, never a DELETE over millions of rows. Its effects:
 *
 * - a week of events leaves with the same week of deliveries (partitioned by event id), once its end is past the
 *   window (plus MARGIN_MS) and none of those deliveries is pending: a delivery still retrying across the boundary
 *   keeps its week, and the weeks after it, until its last retry ends (the schedule ends within ~28 h);
 * - a week of attempts (partitioned by their own id) leaves once its end is past the window and no kept week of
 *   events began before its end, so a kept delivery keeps its attempts;
 * - rows in a default partition (history seeded without its weeks, or a job stopped past its weeks ahead) that
 *   are past the window are deleted row by row, as before partitions: there are few.
 *
 * Rows are kept EVENT_RETENTION_DAYS at least and about a week more at most. Each week drops in its own
 * transaction; a lock not had within LOCK_TIMEOUT stops the run (`busy`).
 */
export async function retireHistory({ ctx, now = Date.now() }: { ctx: Ctx; now?: number }): Promise<Retired> {
  const cutoff = oldestRetained(ctx.env, now).getTime() - MARGIN_MS;
  const result: Retired = { dropped: [], heldBy: null, defaultRows: 0, busy: false };
  const deliveryWeeks = new Map((await weekPartitions(ctx, 'webhook_deliveries')).map((p) => [p.start.getTime(), p]));
  const eventWeeks = await weekPartitions(ctx, 'events');
  let keptFrom = Number.POSITIVE_INFINITY;
  try {
    for (const week of eventWeeks) {
      if (weekEnd(week).getTime() > cutoff) {
        keptFrom = week.start.getTime();
        break;
      }
      const deliveries = deliveryWeeks.get(week.start.getTime());
      if (deliveries && (await hasPending(ctx, deliveries))) {
        result.heldBy = deliveries.name;
        keptFrom = week.start.getTime();
        break;
      }
      result.dropped.push(...(await dropPartitions(ctx, deliveries ? [week, deliveries] : [week])));
    }
    for (const week of await weekPartitions(ctx, 'webhook_attempts')) {
      if (weekEnd(week).getTime() > Math.min(cutoff, keptFrom)) break;
      result.dropped.push(...(await dropPartitions(ctx, [week])));
    }
  } catch (err) {
    if (!isLockTimeout(err)) throw err;
    result.busy = true;
  }
  result.defaultRows = await purgeDefaults(ctx, idFloor(new Date(Math.min(cutoff, keptFrom))));
  if (result.dropped.length > 0) await analyzeHistory(ctx);
  return result;
}

// Through webhook_deliveries_pending_idx (pending rows only): a look, not a read of the week.
async function hasPending(ctx: Ctx, deliveries: WeekPartition): Promise<boolean> {
  const [row] = await ctx.db.execute<{ pending: boolean }>(
    sql`select exists (select 1 from ${sql.identifier(deliveries.name)} where status = 'pending') as pending`,
  );
  return row?.pending === true;
}

/** Detaches and drops partitions in one transaction, events before deliveries (the order fan-out takes them). */
async function dropPartitions(ctx: Ctx, partitions: WeekPartition[]): Promise<string[]> {
  return withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
    for (const p of partitions) {
      await tx.db.execute(sql`alter table ${sql.identifier(p.table)} detach partition ${sql.identifier(p.name)}`);
      await tx.db.execute(sql`drop table ${sql.identifier(p.name)}`);
    }
    return partitions.map((p) => p.name);
  });
}

/** Rows past the window that no week holds, deleted; an event stays while a delivery of its is pending. */
async function purgeDefaults(ctx: Ctx, floor: string): Promise<number> {
  return withTransaction(ctx, async (tx) => {
    const deliveries = await tx.db.execute(sql`
      delete from webhook_deliveries_default d where d.event_id < ${floor}
        and not exists (select 1 from webhook_deliveries_default p where p.event_id = d.event_id and p.status = 'pending')
      returning 1`);
    const events = await tx.db.execute(sql`
      delete from events_default e where e.id < ${floor}
        and not exists (select 1 from webhook_deliveries_default d where d.event_id = e.id)
      returning 1`);
    const attempts = await tx.db.execute(sql`
      delete from webhook_attempts_default a where a.id < ${floor}
        and not exists (select 1 from webhook_deliveries_default d where d.id = a.delivery_id and d.status = 'pending')
      returning 1`);
    return deliveries.length + events.length + attempts.length;
  });
}
