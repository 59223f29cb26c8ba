import type PgBoss from 'pg-boss';
import type postgres from 'postgres';
import { rawSqlOf, type Executor } from '@/db/client';
import type { JobQueue } from '@/server/outbox/job-queue';
import { JOBS_CHANNEL } from '@/server/outbox/queues';

/** The outbox's job queue (server/outbox/job-queue.ts) on pg-boss: jobs go in through the caller's handle. */
export function pgBossJobQueue(boss: PgBoss): JobQueue {
  return {
    send: (db, queue, { data, startAfterSeconds, priority }) =>
      boss.send(queue, data, {
        db: bossExecutor(db),
        ...(startAfterSeconds ? { startAfter: startAfterSeconds } : {}),
        ...(priority ? { priority } : {}),
      }),
    ...coalescedWakes((queue) => boss.getDb().executeSql('select pg_notify($1, $2)', [JOBS_CHANNEL, queue])),
    insert: (db, queue, jobs) =>
      boss.insert(
        jobs.map(({ data, startAfterSeconds, priority }) => ({
          name: queue,
          data,
          ...(priority ? { priority } : {}),
          ...(startAfterSeconds ? { startAfter: new Date(Date.now() + startAfterSeconds * 1000) } : {}),
        })),
        { db: bossExecutor(db) },
      ),
  };
}

/**
 * One NOTIFY per queue in flight at a time, on pg-boss's pool (not the request pool): a wake asked
 * for while one is being sent is sent again once that one is done, so it still follows the commit
 * that asked for it. Under load, hundreds of commits a second cost a few NOTIFYs. A failed NOTIFY is
 * not retried: workers poll (every 2 s at most) whether woken or not.
 */
function coalescedWakes(notify: (queue: string) => Promise<unknown>): Pick<JobQueue, 'wake' | 'wakesSent'> {
  const state = new Map<string, 'sending' | 'again'>();
  const inFlight = new Set<Promise<void>>();
  const send = (queue: string): void => {
    state.set(queue, 'sending');
    const sent: Promise<void> = notify(queue).then(
      () => {},
      () => {},
    );
    inFlight.add(sent);
    void sent.then(() => {
      inFlight.delete(sent);
      if (state.get(queue) === 'again') send(queue);
      else state.delete(queue);
    });
  };
  return {
    wake(queue) {
      if (state.has(queue)) state.set(queue, 'again');
      else send(queue);
    },
    async wakesSent() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}

/**
 * A pg-boss `db` executor over a drizzle handle or an open transaction, so `send(..., { db })` inserts
 * the job in the same transaction as the change that caused it: committed together or not at all.
 *
 * pg-boss's SQL reuses placeholders ($5 three times in one statement). Rebuilding it from drizzle
 * chunks would turn each use into its own parameter, each typed on its own by the server (one of
 * them as timestamptz), so the text goes to the postgres.js connection underneath the drizzle
 * handle as it is.
 */
function bossExecutor(db: Executor): PgBoss.Db {
  const client = rawSqlOf(db);
  return {
    async executeSql(text: string, values: unknown[]) {
      const rows = await client.unsafe(text, values.map(toParam) as postgres.ParameterOrJSON<never>[]);
      return { rows: Array.from(rows) };
    },
  };
}

// pg-boss hands over objects and Dates; postgres.js's unsafe() wants them serialised.
function toParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}
