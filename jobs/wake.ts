import type PgBoss from 'pg-boss';
import type { Deps } from '@/server/context';
import { JOBS_CHANNEL } from '@/server/outbox/queues';

/**
 * Enqueuers NOTIFY the queue's name at commit; every worker process LISTENs and wakes one of its loops of
 * that queue at once, so a committed event's first attempt never waits for a polling interval.
 * postgres.js re-establishes the LISTEN after a lost connection; polling stays as the fallback.
 *
 * One loop, in turn, not all of them: at 50 events/s both fan-out loops fetched for every event, one of
 * them for nothing (a fetch is ~0.7 ms of Postgres's time, planned each run). A loop whose fetch comes back
 * full wakes the queue's others (jobs/registry.ts), so a burst still has them all.
 */
export async function wakeWorkersOnNotify(deps: Deps, boss: PgBoss, workerIds: Map<string, string[]>): Promise<() => Promise<void>> {
  const turns = new Map<string, number>();
  const { unlisten } = await deps.sql.listen(JOBS_CHANNEL, (queue) => {
    const ids = workerIds.get(queue);
    if (!ids || ids.length === 0) return;
    const turn = turns.get(queue) ?? 0;
    turns.set(queue, (turn + 1) % ids.length);
    boss.notifyWorker(ids[turn % ids.length]!);
  });
  return unlisten;
}
