import type PgBoss from 'pg-boss';
import type { Deps } from '@/server/context';
import { MAINTENANCE_INTERVAL_SECONDS, vacuumQueuesSooner } from './boss';
import type { JobDefinition } from './definition';
import { sendMailJob } from './mail';
import { purgeExpiredJob, rollupAttemptsJob } from './maintenance';
import { noticesJob } from './notices';
import { replayPageJob } from './replays';
import { sandboxTimeoutJob, scenarioStepJob } from './sandbox';
import { deliverJob, fanOutJob } from './webhooks';

// How every queue of server/outbox/queues.ts is worked: this list drives queue creation, schedules (jobs/schedules.ts)
// and work() registration. A queue missing here gets no table, and enqueueing to it fails.
export const jobDefinitions: readonly JobDefinition[] = [
  fanOutJob,
  deliverJob,
  replayPageJob,
  scenarioStepJob,
  sandboxTimeoutJob,
  purgeExpiredJob,
  rollupAttemptsJob,
  sendMailJob,
  noticesJob,
] as JobDefinition[];

/** The longest a job held by a dead worker waits before a live worker runs it again. */
export const DEAD_WORKER_BOUND_SECONDS = 60;

/**
 * How long, at most, a job held by a worker that died waits for a live worker: until it expires, then
 * until the next maintenance pass notices, then its retry delay, then the next poll.
 */
export function deadWorkerBoundSeconds(def: JobDefinition): number {
  return (
    def.settings.expireInSeconds + MAINTENANCE_INTERVAL_SECONDS + (def.settings.retryDelay ?? 0) + (def.work?.pollingIntervalSeconds ?? 2)
  );
}

/**
 * Creates every queue (pg-boss 10 silently drops sends to a missing queue), and removes pg-boss cron schedules an
 * earlier release made for them: jobs/schedules.ts sends those jobs now, and a process of that release still running
 * would otherwise go on sending them as well.
 */
export async function createQueues(boss: PgBoss): Promise<void> {
  for (const def of jobDefinitions) {
    if (deadWorkerBoundSeconds(def) > DEAD_WORKER_BOUND_SECONDS || def.settings.retryLimit < 1) {
      throw new Error(
        `queue ${def.queue.name}: a dead worker's job must be retried within ${DEAD_WORKER_BOUND_SECONDS} s (expireInSeconds, retryLimit)`,
      );
    }
    await boss.createQueue(def.queue.name, { name: def.queue.name, ...def.settings });
    // createQueue leaves an existing queue as it was: a database from an earlier release keeps its
    // settings (pg-boss's 15-minute expiry) unless they are written again.
    await boss.updateQueue(def.queue.name, { name: def.queue.name, ...def.settings });
    if (def.everyMinutes) await boss.unschedule(def.queue.name);
  }
  await vacuumQueuesSooner(boss);
}

/**
 * The queues a process works, from WORKER_QUEUES: the names given, or every queue but those given with a leading
 * '-'; unset, every queue. A name that is no queue stops start-up. Measured (docs/benchmarks.md, Replay): a replay's
 * pages worked in a process of their own left the live deliveries' p50 at 2.1-2.3x its value without a replay,
 * against 10-15x when they shared the live path's event loop.
 */
export function workedQueues(names: readonly string[] | undefined): JobDefinition[] {
  if (names === undefined || names.length === 0) return [...jobDefinitions];
  const known = new Set(jobDefinitions.map((def) => def.queue.name));
  const excluding = names.every((name) => name.startsWith('-'));
  if (!excluding && names.some((name) => name.startsWith('-'))) {
    throw new Error("WORKER_QUEUES: name the queues to work, or prefix every name with '-' to work all but those; not both");
  }
  const listed = names.map((name) => (excluding ? name.slice(1) : name));
  const unknown = listed.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`WORKER_QUEUES: no queue named ${unknown.join(', ')} (the queues: ${[...known].join(', ')})`);
  return jobDefinitions.filter((def) => listed.includes(def.queue.name) !== excluding);
}

/** Whether a process working these queues sends webhook attempts, and so needs a delivery engine. */
export function sendsWebhooks(worked: readonly JobDefinition[]): boolean {
  return worked.some((def) => ENGINE_QUEUES.has(def.queue.name));
}

/** Whether they include live webhooks (fan-out's first attempts, deliver's retries and redeliveries), not only replays. */
export function sendsLiveWebhooks(worked: readonly JobDefinition[]): boolean {
  return worked.some((def) => LIVE_QUEUES.has(def.queue.name));
}

const LIVE_QUEUES = new Set<string>([fanOutJob.queue.name, deliverJob.queue.name]);
const ENGINE_QUEUES = new Set<string>([...LIVE_QUEUES, replayPageJob.queue.name]);

/** Starts this process's workers for `worked` (workedQueues); returns the pg-boss worker ids of each queue, for waking them. */
export async function registerWorkers(
  boss: PgBoss,
  deps: Deps,
  worked: readonly JobDefinition[] = jobDefinitions,
): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  for (const def of worked) {
    const options = { pollingIntervalSeconds: 2, ...def.work };
    const list: string[] = [];
    for (let i = 0; i < (def.loops ?? 1); i++) {
      let workerId = '';
      const handler = async (jobs: PgBoss.Job<object>[]) => {
        // pg-boss sleeps the polling interval after every fetch; a full batch means more are waiting,
        // so this loop and the queue's others fetch again at once instead (a commit wakes only one: jobs/wake.ts).
        if (jobs.length >= (options.batchSize ?? 1)) for (const id of list) boss.notifyWorker(id);
        const payloads = jobs.map((job) => def.queue.payload.parse(job.data));
        if (def.handleBatch) await def.handleBatch(payloads, deps);
        else if (def.parallel) await Promise.all(payloads.map((data) => def.handle(data, deps)));
        else for (const data of payloads) await def.handle(data, deps);
      };
      workerId = await boss.work(def.queue.name, options, handler);
      list.push(workerId);
    }
    ids.set(def.queue.name, list);
  }
  return ids;
}
