import type PgBoss from 'pg-boss';
import type { z } from 'zod';
import type { Ctx, SystemActor } from '@/server/context';
import type { Runtime } from '@/server/runtime';

/** One job: a name, its payload schema, its queue settings and its handler. */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  queue?: Omit<PgBoss.Queue, 'name'>;
  /** Cron expression: the job is also scheduled, once for the whole cluster. */
  schedule?: string;
  work?: PgBoss.WorkOptions;
  /** How many fetch loops this process runs for the queue (default 1). */
  loops?: number;
  /** Handle the jobs of one fetched batch concurrently rather than one after another. */
  parallel?: boolean;
  handle(data: z.infer<S>, rt: Runtime): Promise<void>;
  /** When set, a fetched batch goes to this in one call instead of to `handle` job by job. */
  handleBatch?(batch: z.infer<S>[], rt: Runtime): Promise<void>;
}

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

/** Jobs act as the system: the audit log and events name the job. */
export function jobContext(rt: Runtime, name: string): Ctx<SystemActor> {
  return { actor: { kind: 'system', name }, requestId: `job_${name}`, env: rt.env, log: rt.log, db: rt.db };
}
