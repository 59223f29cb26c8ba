import type PgBoss from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { createDbClient } from '@/db/client';
import { pgBossJobQueue } from '@/jobs/job-queue';
import { withTransaction, type Ctx } from '@/server/context';
import { enqueue, enqueueMany } from '@/server/outbox/enqueue';
import type { JobQueue } from '@/server/outbox/job-queue';
import { FAN_OUT } from '@/server/outbox/queues';
import { createTestDatabase } from '../support/database';
import { waitFor } from '../support/poll';

// Wakes are NOTIFYs sent after commit, coalesced per queue: one in flight at a time, and one more
// after it when any was asked for meanwhile, so a wake always follows the commit that asked for it.

function fakeBoss() {
  const sent: { queue: string; release: () => void }[] = [];
  const boss = {
    getDb: () => ({
      executeSql: (_text: string, values: unknown[]) =>
        new Promise<{ rows: unknown[] }>((resolve) => sent.push({ queue: values[1] as string, release: () => resolve({ rows: [] }) })),
    }),
  } as unknown as PgBoss;
  return { queue: pgBossJobQueue(boss), sent };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('wake', () => {
  it('sends one NOTIFY per queue at a time, and one more after it for the wakes asked for meanwhile', async () => {
    const { queue, sent } = fakeBoss();
    queue.wake('a');
    for (let i = 0; i < 100; i++) queue.wake('a');
    queue.wake('b');
    expect(sent.map((s) => s.queue)).toEqual(['a', 'b']);
    sent[0]!.release();
    await tick();
    // The 100 wakes asked for while the first was in flight: one more NOTIFY, sent after the first ended.
    expect(sent.map((s) => s.queue)).toEqual(['a', 'b', 'a']);
    sent[2]!.release();
    sent[1]!.release();
    await tick();
    expect(sent).toHaveLength(3);
    await queue.wakesSent();
    queue.wake('a');
    expect(sent).toHaveLength(4);
  });

  it('wakesSent waits for the NOTIFYs in flight, including the ones they lead to', async () => {
    const { queue, sent } = fakeBoss();
    queue.wake('a');
    queue.wake('a');
    let done = false;
    const waiting = queue.wakesSent().then(() => (done = true));
    sent[0]!.release();
    await tick();
    expect(done).toBe(false);
    sent[1]!.release();
    await waiting;
    expect(done).toBe(true);
  });

  it('a failed NOTIFY is dropped (workers poll), and the next wake is sent', async () => {
    const boss = { getDb: () => ({ executeSql: () => Promise.reject(new Error('connection lost')) }) } as unknown as PgBoss;
    const queue = pgBossJobQueue(boss);
    queue.wake('a');
    await queue.wakesSent();
    queue.wake('a');
    await queue.wakesSent();
  });
});

describe('enqueue in a transaction', () => {
  it('wakes after the commit, and never for a transaction that rolled back', async () => {
    const client = createDbClient(await createTestDatabase(), { max: 2, connectTimeoutSeconds: 5 });
    const log: string[] = [];
    const jobs: JobQueue = {
      send: async () => (log.push('send'), 'job_1'),
      insert: async () => void log.push('insert'),
      wake: (queue) => void log.push(`wake ${queue}`),
      wakesSent: async () => {},
    };
    const ctx = { db: client.db, jobs } as unknown as Ctx;
    try {
      await withTransaction(ctx, async (tx) => {
        await enqueue(tx, FAN_OUT, { event_id: 'evt_1' });
        await enqueueMany(tx, FAN_OUT, [{ data: { event_id: 'evt_2' } }, { data: { event_id: 'evt_3' }, startAfterSeconds: 60 }]);
        log.push('end of transaction');
      });
      expect(log).toEqual(['send', 'insert', 'end of transaction', 'wake webhooks.fanout', 'wake webhooks.fanout']);

      log.length = 0;
      await expect(
        withTransaction(ctx, async (tx) => {
          await enqueue(tx, FAN_OUT, { event_id: 'evt_4' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(log).toEqual(['send']);

      // Outside a transaction the job is committed already: woken at once. Delayed jobs wake nobody.
      log.length = 0;
      await enqueue(ctx, FAN_OUT, { event_id: 'evt_5' });
      await enqueue(ctx, FAN_OUT, { event_id: 'evt_6' }, { startAfterSeconds: 5 });
      expect(log).toEqual(['send', 'wake webhooks.fanout', 'send']);

      // Due within a second: woken when due (after the commit), not at the workers' next poll.
      log.length = 0;
      await withTransaction(ctx, (tx) => enqueue(tx, FAN_OUT, { event_id: 'evt_7' }, { startAfterSeconds: 0.2 }));
      expect(log).toEqual(['send']);
      await waitFor('the wake when due', () => log.includes('wake webhooks.fanout'), { timeoutMs: 2000 });
    } finally {
      await client.sql.end({ timeout: 2 });
    }
  });
});
