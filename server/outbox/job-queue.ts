import type { Executor } from '@/db/client';

export interface JobToEnqueue {
  data: object;
  /** Not before this many seconds from now; absent: due at once. */
  startAfterSeconds?: number;
  /** Fetched after jobs of a higher priority (default 0): replayed deliveries wait behind live ones. */
  priority?: number;
}

/**
 * What the outbox needs of a job queue: inserting jobs through a given database handle, so that a
 * job enqueued inside a transaction commits or rolls back with the change that caused it. The
 * domain knows only this; jobs/job-queue.ts implements it with pg-boss, and server/boot wires it.
 */
export interface JobQueue {
  /** One job; its id, or null when nothing was inserted. */
  send(db: Executor, queue: string, job: JobToEnqueue): Promise<string | null>;
  /** Several jobs of one queue in one statement. */
  insert(db: Executor, queue: string, jobs: JobToEnqueue[]): Promise<void>;
  /**
   * Wakes the queue's idle workers in every process, soon (call it once the jobs are committed).
   * Calls close together are coalesced: many commits cost one wake, never a lost one.
   */
  wake(queue: string): void;
  /** Resolves once every wake asked for so far was sent: a process about to exit waits for it. */
  wakesSent(): Promise<void>;
}

/** For processes that never enqueue (the admin CLI's commands but `order advance`). */
export const jobQueueNotStarted: JobQueue = {
  send: notStarted,
  insert: notStarted,
  wake: notStarted,
  wakesSent: () => Promise.resolve(),
};

function notStarted(): never {
  throw new Error('the job queue is not started in this process');
}
