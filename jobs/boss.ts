import PgBoss from 'pg-boss';
import type { Logger } from '@/server/logger';

export interface BossOptions {
  databaseUrl: string;
  log: Logger;
  /** Workers and the cron scheduler run only in processes that do jobs. */
  schedule: boolean;
}

export async function startBoss({ databaseUrl, log, schedule }: BossOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 8,
    // Expired jobs (their worker died) are failed and retried by this sweep: a killed delivery worker
    // must not hold an event for pg-boss's default two minutes.
    maintenanceIntervalSeconds: 10,
    application_name: 'partner-delivery-jobs',
    schedule,
    supervise: schedule,
  });
  // pg-boss reports a lost database here and recovers by itself; never let it crash the process.
  boss.on('error', (err) => log.warn({ err: err.message }, 'job queue error'));
  await boss.start();
  return boss;
}
