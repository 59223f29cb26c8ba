import type PgBoss from 'pg-boss';
import type { z } from 'zod';
import type { Runtime } from '@/server/runtime';
import type { JobDefinition } from './definition';
import { purgeExpiredJob } from './maintenance';
import { sandboxTimeoutJob, scenarioStepJob } from './sandbox';
import { deliverJob, fanOutJob } from './webhooks';

// Every job of the service: this list drives queue creation, work() registration and enqueue().
export const jobDefinitions = [fanOutJob, deliverJob, scenarioStepJob, sandboxTimeoutJob, purgeExpiredJob] as const;

type Defs = (typeof jobDefinitions)[number];
export type JobName = Defs['name'];
export type JobPayload<N extends JobName> = z.infer<Extract<Defs, { name: N }>['payload']>;

/** Creates every queue (pg-boss 10 silently drops sends to a missing queue) and the schedules. */
export async function createQueues(boss: PgBoss): Promise<void> {
  for (const def of jobDefinitions as readonly JobDefinition[]) {
    await boss.createQueue(def.name, { name: def.name, ...def.queue });
    if (def.schedule) await boss.schedule(def.name, def.schedule, {});
  }
}

/** Starts this process's workers; returns the pg-boss worker ids of each queue, for waking them. */
export async function registerWorkers(boss: PgBoss, rt: Runtime): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  for (const def of jobDefinitions as readonly JobDefinition[]) {
    const options = { pollingIntervalSeconds: 2, ...def.work };
    const list: string[] = [];
    for (let i = 0; i < (def.loops ?? 1); i++) {
      let workerId = '';
      const handler = async (jobs: PgBoss.Job<object>[]) => {
        // pg-boss sleeps the polling interval after every fetch; a full batch means more are waiting,
        // so this loop fetches again at once instead.
        if (jobs.length >= (options.batchSize ?? 1)) boss.notifyWorker(workerId);
        if (def.handleBatch) await def.handleBatch(jobs.map((job) => def.payload.parse(job.data)), rt);
        else if (def.parallel) await Promise.all(jobs.map((job) => def.handle(def.payload.parse(job.data), rt)));
        else for (const job of jobs) await def.handle(def.payload.parse(job.data), rt);
      };
      workerId = await boss.work(def.name, options, handler);
      list.push(workerId);
    }
    ids.set(def.name, list);
  }
  return ids;
}

/** Typed enqueue; pass `db` (an executor over an open transaction) to enqueue atomically with a write. */
export async function enqueue<N extends JobName>(boss: PgBoss, name: N, data: JobPayload<N>, options: PgBoss.SendOptions = {}): Promise<string | null> {
  return boss.send(name, data as object, options);
}
