import { sql } from 'drizzle-orm';
import { withTransaction, type Ctx } from '../context';

/** The history tables, each partitioned a week a partition (db/migrations/0015_history_partitions.sql). */
export const HISTORY_TABLES = ['events', 'webhook_deliveries', 'webhook_attempts'] as const;
export type HistoryTable = (typeof HISTORY_TABLES)[number];

// The current week and two ahead: a maintenance job stopped for up to two weeks leaves no row in a default
// partition. One past that still loses nothing (the default takes them; making their week moves them out).
export const WEEKS_AHEAD = 2;
const WEEK_MS = 7 * 86_400_000;

// Making a week locks the default partition whole while it is scanned for the week's rows (empty, unless the job
// stopped), and every statement that cannot prune its partitions touches the default: give up rather than hold
// them back, and try again at the next run (every 15 minutes, two weeks ahead of need).
const LOCK_TIMEOUT = '500ms';

/** One week partition: its table, name and first moment (Monday 00:00 UTC). */
export interface WeekPartition {
  table: HistoryTable;
  name: string;
  start: Date;
}

/** The week partitions of a history table, oldest first (the default partition is not one). */
export async function weekPartitions(ctx: Ctx, table: HistoryTable): Promise<WeekPartition[]> {
  const rows = await ctx.db.execute<{ name: string }>(sql`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${`public.${table}`}::regclass and c.relname ~ '_w[0-9]{8}$'
    order by c.relname`);
  return rows.map(({ name }) => {
    const ymd = name.slice(-8);
    return { table, name, start: new Date(`${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}T00:00:00Z`) };
  });
}

/** The end of a week partition (exclusive). */
export function weekEnd(p: WeekPartition): Date {
  return new Date(p.start.getTime() + WEEK_MS);
}

/**
 * Makes the partitions of the week holding `now` and of the WEEKS_AHEAD after it, for each history table, unless
 * made; any row the default partition holds in such a week moves in. Answers the partitions made.
 */
export async function makeWeeksAhead(ctx: Ctx, now = new Date()): Promise<string[]> {
  const made: string[] = [];
  try {
    for (let week = 0; week <= WEEKS_AHEAD; week++) made.push(...(await makeWeek(ctx, new Date(now.getTime() + week * WEEK_MS))));
  } catch (err) {
    if (!isLockTimeout(err)) throw err;
    ctx.log.warn({ made }, 'a history week was not made: its table was busy; the next run makes it');
  }
  if (made.length > 0) await analyzeHistory(ctx);
  return made;
}

/** Makes the partitions of the week holding `at` (a seeder of old history calls it, so its rows land in weeks). */
export async function makeWeek(ctx: Ctx, at: Date): Promise<string[]> {
  return withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
    const rows = await tx.db.execute<{ name: string }>(sql`select pdp_history_week(${at.toISOString()}::timestamptz) as name`);
    return rows.map((r) => r.name);
  });
}

/**
 * Autovacuum analyzes partitions but never a partitioned table, whose statistics the planner reads for joins over
 * partitions it cannot prune: refreshed whenever a week comes or goes (a sample of each table, not a scan).
 */
export async function analyzeHistory(ctx: Ctx): Promise<void> {
  await ctx.db.execute(sql.raw(`analyze ${HISTORY_TABLES.join(', ')}`));
}

/** Postgres gave up waiting for a lock (lock_timeout, 55P03); Drizzle wraps the driver's error. */
export function isLockTimeout(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 3; depth++) {
    if ((e as { code?: unknown }).code === '55P03') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
