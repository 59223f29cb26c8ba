import PgBoss from 'pg-boss';
import type { Logger } from '@/server/logger';

export interface BossOptions {
  databaseUrl: string;
  log: Logger;
  /** pg-boss's maintenance (expiring, archiving) runs only in processes that work jobs. */
  supervise: boolean;
}

/** How often worker processes look for expired jobs (their worker died) and retry them. */
export const MAINTENANCE_INTERVAL_SECONDS = 10;

// pg-boss keeps completed jobs in its job table 12 hours by default, and its maintenance reads that
// whole table twice a pass (expiring and archiving, neither predicate indexed): 504 pages a pass on a
// fresh database, 21,690 (0.2-0.45 s every 10 s) with 12 hours of fan-out jobs at 10 orders/s (README,
// Soak). Nothing here reads a completed job after it completed, so they leave after 5 minutes (time
// to look at one while debugging) and the archive keeps them an hour; a failed job stays a day.
export const ARCHIVE_COMPLETED_AFTER_SECONDS = 300;
export const ARCHIVE_FAILED_AFTER_SECONDS = 86_400;
export const DELETE_ARCHIVED_AFTER_SECONDS = 3600;

export async function startBoss({ databaseUrl, log, supervise }: BossOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 8,
    // Expired jobs (their worker died) are failed and retried by this sweep: a killed worker must
    // not hold a job for pg-boss's default two minutes (jobs/registry.ts, deadWorkerBoundSeconds).
    maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
    archiveCompletedAfterSeconds: ARCHIVE_COMPLETED_AFTER_SECONDS,
    archiveFailedAfterSeconds: ARCHIVE_FAILED_AFTER_SECONDS,
    deleteAfterSeconds: DELETE_ARCHIVED_AFTER_SECONDS,
    application_name: 'partner-delivery-jobs',
    // Our schedules are sent by jobs/schedules.ts (why: there).
    schedule: false,
    supervise,
  });
  // pg-boss reports a lost database here and recovers by itself; never let it crash the process.
  boss.on('error', (err) => log.warn({ err: err.message }, 'job queue error'));

  await boss.start();
  await boss.getDb().executeSql(FETCH_ORDER_INDEX, []);
  return boss;
}

// pg-boss fetches `ORDER BY priority desc, created_on, id LIMIT n` among a queue's queued rows, but
// its index (job_i5) is on (name, start_after): every fetch read and sorted the whole backlog, 44 ms
// a fetch with 80,000 deliveries queued and most of the database's time (pg_stat_statements under
// `npm run bench -- delivery`). This index has the fetch's order, so it reads the first rows and
// stops. Made on the partitioned parent, so every queue's table has it; one statement, so the
// transaction lock makes processes starting together on a new database build it once.
const FETCH_ORDER_INDEX = `do $$ begin
  perform pg_advisory_xact_lock(728463103);
  create index if not exists job_fetch_order on pgboss.job (name, priority desc, created_on, id) where state < 'active';
end $$`;

// pg-boss writes four versions of every job in its queue's partition (queued, active, completed, then deleted when
// archived after ARCHIVE_COMPLETED_AFTER_SECONDS), so a busy queue's partition is mostly churn: the fan-out queue's
// held 5 minutes of jobs (3,000 rows at 10 orders/s) and averaged 22-25 % dead over a soak's second half (README,
// Soak; aim < 20 %). Autovacuum waits for 20 % of a table to be dead before it looks; a queue's partition is vacuumed
// at 5 % instead. What bounds the dead share then is how often autovacuum looks at all (`autovacuum_naptime`, a server
// setting: 15 s on the embedded Postgres, db/embedded/start.ts, and the README's production section). Set on each
// queue's partition (Postgres takes no autovacuum setting on a partitioned parent), only where it is not set yet: the
// statement waits for an autovacuum of that table to give way, so a restart does not ask again.
const QUEUE_VACUUM_SCALE_FACTOR = 0.05;
const QUEUE_VACUUM = `do $$ declare t text; begin
  perform pg_advisory_xact_lock(728463105);
  for t in select q.partition_name from pgboss.queue q
      join pg_class c on c.relname = q.partition_name and c.relnamespace = 'pgboss'::regnamespace
      where not coalesce(c.reloptions, '{}') @> array['autovacuum_vacuum_scale_factor=${QUEUE_VACUUM_SCALE_FACTOR}'] loop
    execute format('alter table pgboss.%I set (autovacuum_vacuum_scale_factor = ${QUEUE_VACUUM_SCALE_FACTOR})', t);
  end loop;
end $$`;

/** Every queue's partition vacuumed once 5 % of it is dead (see QUEUE_VACUUM); after the queues are created. */
export async function vacuumQueuesSooner(boss: PgBoss): Promise<void> {
  await boss.getDb().executeSql(QUEUE_VACUUM, []);
}

/**
 * Called just before the process stops the embedded Postgres it started: a connection the database
 * closes under pg-boss from then on is that shutdown itself, logged for debugging, not as a warning.
 */
export function expectDatabaseShutdown(boss: PgBoss, log: Logger): void {
  boss.removeAllListeners('error');
  boss.on('error', (err) => log.debug({ err: err.message }, 'job queue error while the database stops'));
}
