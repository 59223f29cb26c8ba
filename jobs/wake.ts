import type PgBoss from 'pg-boss';
import type { Deps } from '@/server/context';
import { JOBS_CHANNEL } from '@/server/outbox/queues';

/**
 * Enqueuers NOTIFY the queue's name at commit; every worker process LISTENs and wakes its workers of
 * that queue at once, so a committed event's first attempt never waits for a polling interval.
 * postgres.js re-establishes the LISTEN after a lost connection; polling stays as the fallback.
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
