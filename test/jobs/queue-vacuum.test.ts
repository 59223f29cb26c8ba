import { describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { startBoss, vacuumQueuesSooner } from '@/jobs/boss';
import { createQueues, jobDefinitions } from '@/jobs/registry';
import { createLogger } from '@/server/logger';
import { createTestDatabase } from '../support/database';

// pg-boss's queue partitions are mostly churn (four versions of every job): each is vacuumed once 5 % of it is
// dead, not autovacuum's default 20 % (jobs/boss.ts, QUEUE_VACUUM), however many processes start.

describe("the queues' partitions", () => {
  it('are each vacuumed at 5 % dead once the queues are created, and asking again changes nothing', async () => {
    const url = await createTestDatabase();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const boss = await startBoss({ databaseUrl: url, log: createLogger('silent'), supervise: false });
    try {
      await createQueues(boss);
      const options = () => sql<{ queue: string; reloptions: string[] | null }[]>`
        select q.name as queue, c.reloptions from pgboss.queue q
          join pg_class c on c.relname = q.partition_name and c.relnamespace = 'pgboss'::regnamespace order by q.name`;
      const set = await options();
      expect(set.map((r) => r.queue).sort()).toEqual(jobDefinitions.map((d) => d.queue.name).sort());
      for (const row of set) expect(row.reloptions, row.queue).toContain('autovacuum_vacuum_scale_factor=0.05');

      // A restart: nothing is altered again (an ALTER waits for an autovacuum of its table to give way).
      const [before] = await sql<{ altered: string }[]>`select max(xmin::text::bigint)::text as altered from pg_class
        where relnamespace = 'pgboss'::regnamespace`;
      await Promise.all([vacuumQueuesSooner(boss), vacuumQueuesSooner(boss)]);
      const [after] = await sql<{ altered: string }[]>`select max(xmin::text::bigint)::text as altered from pg_class
        where relnamespace = 'pgboss'::regnamespace`;
      expect(after!.altered).toBe(before!.altered);
      expect(await options()).toEqual(set);
    } finally {
      await boss.stop({ graceful: false, wait: true }).catch(() => {});
      await sql.end({ timeout: 2 });
    }
  });
});
