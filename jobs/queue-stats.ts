import type { Deps } from '@/server/context';
import { DELIVER, FAN_OUT } from '@/server/outbox/queues';

// A burst of events grows the delivery queue's table from nothing to 100,000 rows in seconds, long
// before autovacuum's next look (once a minute) refreshes its statistics. Planning with an empty
// table's statistics, Postgres answered pg-boss's fetch by reading and sorting the whole backlog
// (194 ms a fetch at 90,000 queued) instead of reading the first rows of the index in fetch order
// (jobs/boss.ts). Worker processes keep the busiest queues' statistics fresh themselves: every few
// seconds, one of them re-analyzes a queue table that changed a lot since its last analyze.

const QUEUES = [FAN_OUT.name, DELIVER.name];
const REFRESH = `do $$ declare t text; begin
  if pg_try_advisory_xact_lock(728463104) then
    for t in
      select q.partition_name from pgboss.queue q
      join pg_stat_user_tables s on s.schemaname = 'pgboss' and s.relname = q.partition_name
      where q.name in (${QUEUES.map((q) => `'${q}'`).join(', ')}) and s.n_mod_since_analyze > 5000
    loop
      execute format('analyze pgboss.%I', t);
    end loop;
  end if;
end $$`;

export function keepQueueStatisticsFresh(deps: Deps, everyMs = 5000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    deps.sql
      .unsafe(REFRESH)
      .catch((err: unknown) => deps.log.warn({ err }, 'queue statistics refresh failed'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
