import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBoss } from '@/jobs/boss';
import { jobDefinitions } from '@/jobs/registry';
import { sendDueSchedules, slotOf } from '@/jobs/schedules';
import { createLogger } from '@/server/logger';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';

// The scheduled queues (jobs/schedules.ts): each sent once per slot for the whole cluster, by whichever worker process
// looks first, and by the worker that `npm start` runs without anyone sending by hand. pg-boss's cron is off.

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});

const scheduled = jobDefinitions.filter((def) => def.everyMinutes);

/** The scheduled jobs of a queue made in the slot starting at `slot` (pg-boss files a send by the database's clock). */
async function jobsInSlot(queue: string, slot: number): Promise<number> {
  const [row] = await svc.rt.db.execute<{ n: number }>(sql`
    select count(*)::int as n from pgboss.job where name = ${queue} and singleton_key = 'schedule'
      and singleton_on = (${new Date(slot).toISOString()}::timestamptz at time zone 'UTC')`);
  return row!.n;
}

describe('scheduled queues', () => {
  it('the four upkeep queues are scheduled: the purge every 15 minutes, the rollup, the notices and the sandbox sweep every minute', () => {
    expect(Object.fromEntries(scheduled.map((def) => [def.queue.name, def.everyMinutes]))).toEqual({
      'maintenance.purge-expired': 15,
      'maintenance.rollup-attempts': 1,
      'webhooks.notices': 1,
      'sandbox.timeout-sweep': 1,
    });
  });

  it('the running worker sends every scheduled queue in its slot, and pg-boss keeps no cron schedule', async () => {
    // The every-minute queues: a job in the current minute's slot or the one before (the worker looked in it).
    for (const def of scheduled.filter((d) => d.everyMinutes === 1)) {
      await waitFor(
        `${def.queue.name} sent by the worker`,
        async () => {
          const now = Date.now();
          return (await jobsInSlot(def.queue.name, slotOf(1, now))) + (await jobsInSlot(def.queue.name, slotOf(1, now - 60_000))) > 0;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
    }
    const schedules = await svc.rt.db.execute<{ name: string }>(sql`select name from pgboss.schedule`);
    expect(Array.from(schedules)).toEqual([]);
  });

  it('sends a slot once across processes, only in its first minute', async () => {
    // A database no worker schedules on, and two processes' queue clients looking at once.
    const quiet = await startTestService({ WORKERS: 'off' });
    const log = createLogger('silent');
    const [a, b] = await Promise.all([
      startBoss({ databaseUrl: quiet.databaseUrl, log, supervise: false }),
      startBoss({ databaseUrl: quiet.databaseUrl, log, supervise: false }),
    ]);
    try {
      const purge = scheduled.find((def) => def.everyMinutes === 15)!;
      // The clock the rule reads is set 10 s into a 15-minute slot, so both send. pg-boss throttles by the minute of
      // the database's clock: away from its end, both sends land in the same minute.
      const [row] = await quiet.rt.db.execute<{ now: string }>(sql`select now()::text as now`);
      const intoMinute = new Date(row!.now).getTime() % 60_000;
      if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 61_000 - intoMinute));
      const slot = slotOf(15, Date.now());
      const count = async () => {
        const [r] = await quiet.rt.db.execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = ${purge.queue.name} and singleton_key = 'schedule'`,
        );
        return r!.n;
      };
      const sentA = new Map<string, number>();
      const made = await Promise.all([
        sendDueSchedules(a, [purge], sentA, slot + 10_000),
        sendDueSchedules(b, [purge], new Map(), slot + 10_000),
      ]);
      expect(made.flat()).toEqual([purge.queue.name]);
      expect(await count()).toBe(1);
      // Looked again: a made it, so it does not send again; b, or a process started 5 minutes into the slot, sends
      // nothing (a completed job leaves the job table after 5 minutes, and a second send would then run it twice).
      expect(await sendDueSchedules(a, [purge], sentA, slot + 25_000)).toEqual([]);
      expect(await sendDueSchedules(b, [purge], new Map(), slot + 5 * 60_000)).toEqual([]);
      // Nor right at the slot's edges, where the database's clock may still be in the minute before.
      expect(await sendDueSchedules(b, [purge], new Map(), slot + 1_000)).toEqual([]);
      expect(await count()).toBe(1);
    } finally {
      await Promise.all([a.stop({ graceful: false, wait: true }), b.stop({ graceful: false, wait: true })]);
    }
  });
});
