import type PgBoss from 'pg-boss';
import { contextFor, type Ctx, type Deps, type SystemActor } from '@/server/context';
import type { JobData, Queue } from '@/server/outbox/queues';

/**
 * A queue's pg-boss settings. expireInSeconds and retryLimit are required: a job whose worker died
 * stays `active` until it expires (pg-boss's default is 15 minutes) and is then retried, so together
 * with the maintenance interval they bound how long a dead worker holds a job (deadWorkerBoundSeconds).
 */
export type QueueSettings = Omit<PgBoss.Queue, 'name' | 'expireInSeconds' | 'retryLimit'> & { expireInSeconds: number; retryLimit: number };

/** How one queue is worked: its pg-boss settings and its handler (the queue's name and payload: server/outbox/queues.ts). */
export interface JobDefinition<Q extends Queue = Queue> {
  queue: Q;
  settings: QueueSettings;
  /** The job is also sent every this many minutes, once for the whole cluster (jobs/schedules.ts). */
  everyMinutes?: number;
  work?: PgBoss.WorkOptions;
  /** How many fetch loops this process runs for the queue (default 1). */
  loops?: number;
  /** Handle the jobs of one fetched batch concurrently rather than one after another. */
  parallel?: boolean;
  handle(data: JobData<Q>, deps: Deps): Promise<void>;
  /** When set, a fetched batch goes to this in one call instead of to `handle` job by job. */
  handleBatch?(batch: JobData<Q>[], deps: Deps): Promise<void>;
}

export function defineJob<Q extends Queue>(def: JobDefinition<Q>): JobDefinition<Q> {
  return def;
}

/** Jobs act as the system: the audit log and events name the job. */
export function jobContext(deps: Deps, name: string): Ctx<SystemActor> {
  return contextFor(deps, { kind: 'system', name }, `job_${name}`);
}
