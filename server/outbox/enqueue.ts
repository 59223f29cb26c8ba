import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';
import { JOBS_CHANNEL, type JobData, type Queue } from './queues';

export interface EnqueueOptions {
  /** Not before this many seconds from now; absent: due at once, and idle workers are woken. */
  startAfterSeconds?: number;
}

/**
 * Enqueues one job on ctx's database handle: inside withTransaction, it commits or rolls back with
 * the change that caused it (the transactional outbox). Returns the job's id.
 */
export async function enqueue<Q extends Queue>(ctx: Ctx, queue: Q, data: JobData<Q>, options: EnqueueOptions = {}): Promise<string> {
  const id = await ctx.jobs.send(ctx.db, queue.name, { data: data as object, startAfterSeconds: options.startAfterSeconds });
  // pg-boss answers null rather than throwing when it inserted nothing (a queue that does not
  // exist): the change must not commit without its job, or its effect would never come.
  if (!id) throw new Error(`could not enqueue ${queue.name}`);
  if (!options.startAfterSeconds) await wakeWorkers(ctx, queue);
  return id;
}

/** Several jobs of one queue in one statement, on ctx's database handle like enqueue. */
export async function enqueueMany<Q extends Queue>(
  ctx: Ctx,
  queue: Q,
  jobs: { data: JobData<Q>; startAfterSeconds?: number }[],
): Promise<void> {
  if (jobs.length === 0) return;
  await ctx.jobs.insert(ctx.db, queue.name, jobs as { data: object; startAfterSeconds?: number; priority?: number }[]);
  if (jobs.some((job) => !job.startAfterSeconds)) await wakeWorkers(ctx, queue);
}

// Sent at commit (at once outside a transaction): wakes idle workers of the queue in every process
// instead of leaving the job to their next poll.
async function wakeWorkers(ctx: Ctx, queue: Queue): Promise<void> {
  await ctx.db.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${queue.name})`);
}
