import type PgBoss from 'pg-boss';
import type { Logger } from '@/server/logger';
import type { JobDefinition } from './definition';

// Scheduled queues, without pg-boss's cron. Its monitor parses every schedule's cron expression with cron-parser and
// computes its previous time through luxon every 30 s, in every process that works jobs: 20-42 ms of main-thread time
// a pass in the `npm start` process (CPU profile, idle, 150 s), 1.4-47 ms for one `prev()` of our expressions in a bare
// node process, and a queue of its own polled every 5 s. Our schedules are all "every N minutes", which is arithmetic.
// What it did not show: the idle process's event-loop lag, sampled as its maximum per 5 s for 150 s, had 3 windows
// over 20 ms before (29-35 ms) and 2 after (23, 31): the process's other pauses (GC) are as long.

/** How often a worker process looks for a slot to send. */
export const SCHEDULE_LOOK_MS = 15_000;
/**
 * A slot's job is sent in its first minute, 5 to 55 s in, with pg-boss's throttle of one job per queue and minute (its
 * unique index on the job's `singleton_on`, the minute by the database's clock): pg-boss refuses a throttle longer
 * than the time a completed job stays in its table (5 minutes, jobs/boss.ts), so a 15-minute slot is deduplicated by
 * its first minute, and not sent later in it. The 5 s at each edge keep a send inside that minute by the database's
 * clock too, for clocks up to 5 s apart. Looks every 15 s land at least three times in those 50 s.
 */
const SEND_FROM_MS = 5_000;
const SEND_UNTIL_MS = 55_000;
const THROTTLE_SECONDS = 60;
const SINGLETON_KEY = 'schedule';

/** The slot of `everyMinutes` that `at` falls in: its start, on whole multiples of the epoch (15: :00, :15, :30, :45). */
export function slotOf(everyMinutes: number, at: number): number {
  const length = everyMinutes * 60_000;
  return Math.floor(at / length) * length;
}

/**
 * Sends the job of every scheduled queue whose slot's first minute this is, unless this process made the slot's job
 * already. Once for the whole cluster: whichever process sends first makes the job, the others' sends add nothing
 * (pg-boss's throttle, above). `sent` remembers the slot each queue's job was made for here; a send that made nothing
 * (another process made it) is tried again at the next look, and adds nothing again.
 */
export async function sendDueSchedules(
  boss: PgBoss,
  definitions: readonly JobDefinition[],
  sent: Map<string, number>,
  now = Date.now(),
): Promise<string[]> {
  // The queues whose slot's job this call made.
  const sentNow: string[] = [];
  for (const def of definitions) {
    if (!def.everyMinutes) continue;
    const slot = slotOf(def.everyMinutes, now);
    if (sent.get(def.queue.name) === slot || now - slot < SEND_FROM_MS || now - slot >= SEND_UNTIL_MS) continue;
    const id = await boss.sendThrottled(def.queue.name, {}, {}, THROTTLE_SECONDS, SINGLETON_KEY);
    if (id === null) continue;
    sent.set(def.queue.name, slot);
    sentNow.push(def.queue.name);
  }
  return sentNow;
}

/** Looks every SCHEDULE_LOOK_MS (and once now) in a worker process; answers the function that stops it. */
export function startSchedules(boss: PgBoss, definitions: readonly JobDefinition[], log: Logger): () => void {
  const sent = new Map<string, number>();
  let looking = false;
  const look = async () => {
    if (looking) return;
    looking = true;
    try {
      await sendDueSchedules(boss, definitions, sent);
    } catch (err) {
      log.warn({ err }, 'could not send the scheduled jobs; the next look tries again');
    } finally {
      looking = false;
    }
  };
  void look();
  const timer = setInterval(() => void look(), SCHEDULE_LOOK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
