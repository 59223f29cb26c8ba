import type postgres from 'postgres';
import { ARCHIVE_COMPLETED_AFTER_SECONDS, DELETE_ARCHIVED_AFTER_SECONDS } from '@/jobs/boss';
import { seedHistory } from './history';

// What hours of running leave in the tables that keep rows, written in a minute, so that a soak of
// minutes runs against the tables of hour H: autovacuum waits for a share of a table's rows to be
// dead (20 %), so the bigger the table the longer the garbage the hot scans read between vacuums.

// pg-boss 10 moves completed jobs to pgboss.archive after archiveCompletedAfterSeconds and deletes
// them from there deleteAfterSeconds later (jobs/boss.ts).
const JOB_RETENTION_HOURS = ARCHIVE_COMPLETED_AFTER_SECONDS / 3600;
const ARCHIVE_RETENTION_HOURS = DELETE_ARCHIVED_AFTER_SECONDS / 3600;

/**
 * Completed fan-out jobs (one per order) of the last min(hours, JOB_RETENTION_HOURS) hours at `ordersPerSecond`,
 * spread evenly up to now, so pg-boss's maintenance archives the oldest as the soak completes new
 * ones (the steady state once the soak is older than that); and a webhook history (bench/history.ts: another
 * partner's events, each with one delivery and two attempts) with the deliveries of `hours` hours.
 * Then vacuumed and analyzed, as autovacuum would have by then.
 */
export async function seedAgedTables(
  sql: postgres.Sql,
  { hours, ordersPerSecond, subscriptions }: { hours: number; ordersPerSecond: number; subscriptions: number },
): Promise<{ jobs: number; deliveries: number }> {
  const jobHours = Math.min(hours, JOB_RETENTION_HOURS);
  const jobs = Math.round(jobHours * 3600 * ordersPerSecond);
  const started = performance.now();
  await sql`
    insert into pgboss.job (id, name, data, state, retry_limit, retry_delay, retry_backoff, start_after, started_on, created_on,
      completed_on, keep_until, expire_in, policy)
    select gen_random_uuid(), 'webhooks.fanout', jsonb_build_object('event_id', 'aged-' || i), 'completed', 10, 2, true, t, t, t,
      t, t + interval '14 days', interval '30 seconds', 'standard'
    from (select i, now() - make_interval(secs => ${jobHours * 3600}::float8 * i / ${jobs}) as t from generate_series(1, ${jobs}) i) s`;
  // And those archived before them, still in pgboss.archive until deleted.
  const archiveHours = Math.min(Math.max(0, hours - jobHours), ARCHIVE_RETENTION_HOURS);
  const archived = Math.round(archiveHours * 3600 * ordersPerSecond);
  await sql`
    insert into pgboss.archive (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after,
      started_on, created_on, completed_on, keep_until, expire_in, policy, archived_on)
    -- LIKE pgboss.job without its defaults: every not-null column given.
    select gen_random_uuid(), 'webhooks.fanout', 0, jsonb_build_object('event_id', 'archived-' || i), 'completed', 10, 0, 2, true, t, t, t,
      t, t + interval '14 days', interval '30 seconds', 'standard', t + make_interval(secs => ${ARCHIVE_COMPLETED_AFTER_SECONDS})
    from (select i, now() - make_interval(secs => ${(jobHours + archiveHours) * 3600}::float8) + make_interval(secs => ${archiveHours * 3600}::float8 * i / ${Math.max(1, archived)}) as t
      from generate_series(1, ${archived}) i) s`;
  await sql`vacuum (analyze) pgboss.job`;
  await sql`vacuum (analyze) pgboss.archive`;
  console.log(
    `  ${jobs.toLocaleString('en-US')} completed fan-out jobs (${Math.round(jobHours * 60)} min) and ${archived.toLocaleString('en-US')} archived ` +
      `(${Math.round(archiveHours * 60)} min): ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const deliveries = Math.round(hours * 3600 * ordersPerSecond * subscriptions);
  await seedHistory(sql, { events: deliveries, days: hours / 24, tag: 'soak, aged', log: (line) => console.log(`  ${line}`) });
  await sql`checkpoint`;
  return { jobs: jobs + archived, deliveries };
}
