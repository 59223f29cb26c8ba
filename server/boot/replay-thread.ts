import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PoolUsage } from '@/db/client';
import type { Env } from '@/server/config/env';
import type { Logger } from '@/server/logger';
import type { Metrics } from '@/server/observability';
import { REPLAY_PAGE } from '@/server/outbox/queues';
import type { DrainReport, StopOptions } from './start-process';

/**
 * A process that works every queue gives the replays' pages to a worker thread of its own (REPLAY_THREAD=on, the
 * default): the thread runs a worker-only copy of the service (server/boot/replay-thread-main.ts) that works
 * `webhooks.replay-page` alone, so its engine claims, sends and records the replayed attempts, while this thread's
 * event loop keeps the requests and the live deliveries. Measured (docs/benchmarks.md, Replay): with a replay's
 * pages in the same event loop, a live delivery waited behind the replay's many small tasks at each of its round
 * trips (live p50 77-91 ms during a 20,000-event replay against 8 alone); worked by a process of their own, 16-24 ms.
 */
export interface ReplayThread {
  /** Drains the thread's process (its attempts in flight get until the deadline) and ends the thread. */
  stop(options: StopOptions): Promise<DrainReport | undefined>;
  /** The thread's database pool as it last reported it (every POOL_REPORT_MS), for the process's pool gauges. */
  pool(): PoolUsage | undefined;
}

/** How often the thread reports its pool's usage: the gauges read at a scrape are at most this old. */
export const POOL_REPORT_MS = 1000;

/** What the thread tells its process. */
type FromThread =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'metrics'; calls: MetricCall[] }
  | { kind: 'pool'; usage: PoolUsage }
  | { kind: 'stopped'; report: DrainReport };

type MetricCall = { [K in keyof Metrics]: [K, Parameters<Metrics[K]>] }[keyof Metrics];

/** The env the thread runs with: this process's, on its database and key, working only the replays' pages. */
export function replayThreadEnv(env: Env, databaseUrl: string, secretKey: string): Env {
  // No METRICS_PORT: the thread's counts reach this process's /metrics (forwardingMetrics), and the port is this one's.
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    SECRET_ENCRYPTION_KEY: secretKey,
    WORKER_QUEUES: [REPLAY_PAGE.name],
    METRICS_PORT: undefined,
  };
}

/**
 * Starts the thread and resolves once its workers are up. Its metrics land in `metrics`. A thread that fails
 * after start-up ends the process, as an uncaught error in this thread would: replays would otherwise wait
 * unworked behind a process that looks healthy.
 */
export async function startReplayThread(env: Env, { log, metrics }: { log: Logger; metrics?: Metrics }): Promise<ReplayThread> {
  const worker = new Worker(new URL('./replay-thread-entry.mjs', import.meta.url), { workerData: { env } });
  let stopped: ((report: DrainReport | undefined) => void) | undefined;
  let stopping: Promise<DrainReport | undefined> | undefined;
  let ready = false;
  let pool: PoolUsage | undefined;
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message: FromThread) => {
      if (message.kind === 'ready') {
        ready = true;
        resolve();
      } else if (message.kind === 'failed') reject(new Error(`replay thread: ${message.message}`));
      else if (message.kind === 'metrics') for (const call of message.calls) applyCall(metrics, call);
      else if (message.kind === 'pool') pool = message.usage;
      else stopped?.(message.report);
    });
    // An uncaught error in the thread ends it: 'exit' follows.
    worker.on('error', (error) => (ready ? log.fatal({ err: error }, 'the replay thread failed') : reject(error)));
    worker.on('exit', (code) => {
      if (stopping) return stopped?.(undefined);
      if (!ready) return reject(new Error(`replay thread: ended during start-up (code ${code})`));
      log.fatal({ code }, 'the replay thread ended unasked: exiting, as replays would wait unworked');
      process.exit(1);
    });
  });
  return {
    pool: () => pool,
    stop: (options) =>
      (stopping ??= new Promise<DrainReport | undefined>((resolve) => {
        stopped = resolve;
        worker.postMessage({ kind: 'stop', options });
      })),
  };
}

// The replay thread's scheduling priority (nice), against the process's 0. Its attempts still wait for the same two
// cores as the live path: at 0, the main thread's event-loop delay p99 during a 20,000-event replay was 23-27 ms and
// the live p99 74-93 ms (alone 15-26); at 10, 20-22 and 50-70 ms (alone 21-29); at 19, 19-20 and 47-52 ms (alone
// 16-17); the replay 862-1,311 events/s either way (npm run bench -- replay, alternating, 2026-11-28). 10, not 19: a
// process whose live work filled its cores would leave a backfill at 19 almost nothing (a 70th of a core against
// a ninth at 10).
const REPLAY_THREAD_NICE = 10;

/**
 * Called by the replay thread on itself: it takes the cores after the thread of the requests and live deliveries.
 * Linux names a thread by its id (/proc/thread-self); elsewhere the thread keeps the process's priority.
 */
export function lowerThisThreadsPriority(log: Logger): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, REPLAY_THREAD_NICE);
  } catch (error) {
    log.debug({ err: error }, 'replay thread: priority not lowered');
  }
}

function applyCall(metrics: Metrics | undefined, [name, args]: MetricCall): void {
  if (!metrics) return;
  (metrics[name] as (...a: unknown[]) => void)(...args);
}

// The thread's counts go to its process in batches: a replay records a thousand attempts a second.
const FORWARD_MS = 100;

/** The thread's Metrics: each call is kept and sent to the process's registry every FORWARD_MS, and at flush(). */
export function forwardingMetrics(send: (calls: MetricCall[]) => void): Metrics & { flush(): void } {
  let calls: MetricCall[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (calls.length === 0) return;
    send(calls);
    calls = [];
  };
  const keep = (call: MetricCall) => {
    calls.push(call);
    timer ??= setTimeout(flush, FORWARD_MS).unref();
  };
  return {
    flush,
    httpRequest: (...args) => keep(['httpRequest', args]),
    attempt: (...args) => keep(['attempt', args]),
    delivery: (...args) => keep(['delivery', args]),
    claimRenewalLate: (...args) => keep(['claimRenewalLate', args]),
    notice: (...args) => keep(['notice', args]),
  };
}
