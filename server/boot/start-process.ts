import postgres from 'postgres';
import type { PoolUsage, QueryObserver } from '@/db/client';
import { expectDatabaseShutdown, startBoss } from '@/jobs/boss';
import { startDeliveryEngine, type DeliveryEngine, type EngineDrain } from '@/jobs/delivery-engine';
import { keepQueueStatisticsFresh } from '@/jobs/queue-stats';
import { createQueues, jobDefinitions, registerWorkers, sendsLiveWebhooks, sendsWebhooks, workedQueues } from '@/jobs/registry';
import { startSchedules } from '@/jobs/schedules';
import { wakeWorkersOnNotify } from '@/jobs/wake';
import type { Env } from '@/server/config/env';
import { loadSecretBox, secretKeyText } from '@/server/crypto/encryption-key';
import { createLogger, type Logger } from '@/server/logger';
import type { Metrics } from '@/server/observability';
import { REPLAY_PAGE } from '@/server/outbox/queues';
import type { Resolver } from '@/server/delivery/url-policy';
import { createMetrics, serveMetrics } from './metrics';
import { seedDemo, type DemoCredentials } from './demo-seed';
import { openDatabase } from './open-database';
import { createRuntime, type Runtime } from './runtime';
import { replayThreadEnv, startReplayThread } from './replay-thread';

export interface RunningProcess {
  /** Base URL of the HTTP server; undefined for a worker-only process. */
  url?: string;
  /** A worker-only process's metrics address, when METRICS_PORT is set. */
  metricsUrl?: string;
  rt: Runtime;
  demo?: DemoCredentials;
  /**
   * Drains and closes: stops accepting requests and fetching jobs, gives those in flight until the
   * deadline (SHUTDOWN_TIMEOUT_MS by default), then closes what is left. Idempotent.
   */
  stop(options?: StopOptions): Promise<DrainReport>;
}

export interface StopOptions {
  deadlineMs?: number;
  /** Why (the signal's name), for the log. */
  reason?: string;
}

/** What one drain did, logged when it is done. */
export interface DrainReport {
  ms: number;
  /** Requests in flight when the drain began, and those that arrived on open connections during it. */
  requestsAnswered: number;
  /** Requests still unanswered at the deadline: their connections were closed. */
  requestsCutOff: number;
  attempts?: EngineDrain;
}

export interface ProcessRoles {
  web: boolean;
  workers: boolean;
}

export interface ProcessOptions {
  log?: Logger;
  /** How webhook hosts resolve (tests point names at chosen addresses); the system's DNS by default. */
  resolver?: Resolver;
  /** Sees every statement of the process's pool (not pg-boss's): tests count queries with it. */
  onQuery?: QueryObserver;
  /** Sees every statement of the read pools on DATABASE_READ_URL. */
  onReadQuery?: QueryObserver;
  /**
   * A process that works every queue gives the replays' pages to a thread of its own when REPLAY_THREAD=on
   * (server/boot/replay-thread.ts). The entry points (web.ts, worker.ts) ask for it; tests that start processes
   * in-process do not, unless they test the thread (a thread cannot take `resolver` or `onQuery`).
   */
  replayThread?: boolean;
  /**
   * The replay thread's own process: its counts go to its parent's registry, and it makes none; its drain is
   * logged by its parent, whose lines count its attempts.
   */
  reportTo?: Metrics;
}

/** Starts one process of the service: web tier, workers, or both (the default for `npm start`). */
export async function startProcess(env: Env, roles: ProcessRoles, options: ProcessOptions = {}): Promise<RunningProcess> {
  const log = options.log ?? createLogger(env.LOG_LEVEL);
  // Before any database work: with DATABASE_URL and no key, or a WORKER_QUEUES name that is no queue, start-up stops
  // here with a clear message.
  const secretBox = loadSecretBox(env);
  const threadWanted = options.replayThread === true && roles.workers && env.REPLAY_THREAD === 'on' && env.WORKER_QUEUES === undefined;
  const worked = roles.workers ? workedQueues(threadWanted ? [`-${REPLAY_PAGE.name}`] : env.WORKER_QUEUES) : [];
  const db = await openDatabase(env, log);

  // Every process gets a queue client (the web tier enqueues); only worker processes work and schedule.
  const boss = await startBoss({ databaseUrl: db.url, log, supervise: roles.workers });
  await createQueues(boss);
  // Its own small pool of one: a scrape never waits behind the request or delivery traffic.
  const metricsSql = options.reportTo ? undefined : postgres(db.url, { max: 1, onnotice: () => {} });
  const metrics = metricsSql && createMetrics(metricsSql, log);
  const rt = createRuntime({
    env,
    databaseUrl: db.url,
    log,
    secretBox,
    boss,
    resolver: options.resolver,
    onQuery: options.onQuery,
    onReadQuery: options.onReadQuery,
    metrics: options.reportTo ?? metrics,
  });
  metrics?.readPools(rt.poolUsages);
  metrics?.readReplica(rt.readReplica);
  // Started now, awaited last: it opens its own pools and workers meanwhile. Its failure is start-up's, once awaited;
  // until then it is not an unhandled rejection.
  const replayThreadStarting = threadWanted
    ? startReplayThread(replayThreadEnv(env, db.url, secretKeyText(env)), { log, metrics })
    : undefined;
  replayThreadStarting?.catch(() => {});
  // Only the web tier reads lists. The first probe before listening, so a replica that is there serves
  // the first request; one that is not leaves the reads on the primary (see read-replica.ts).
  let stopProbing: (() => void) | undefined;
  if (rt.readReplica && roles.web) {
    await rt.readReplica.probe().catch((error: unknown) => log.warn({ err: error }, 'read replica: first probe failed'));
    stopProbing = rt.readReplica.start();
  }
  const demo = !env.DATABASE_URL && env.SEED_DEMO ? await seedDemo(rt) : undefined;

  let unlisten: (() => Promise<void>) | undefined;
  let stopStatistics: (() => void) | undefined;
  let stopSchedules: (() => void) | undefined;
  let engine: DeliveryEngine | undefined;
  let workerIds: Map<string, string[]> | undefined;
  if (roles.workers) {
    // A process that sends no webhook (WORKER_QUEUES without fan-out, deliveries or replays) runs no engine: an
    // engine beats as a live worker, and each live one takes an equal share of every subscription's in-flight limit.
    if (sendsWebhooks(worked)) engine = await startDeliveryEngine(rt, { sendsLive: sendsLiveWebhooks(worked) });
    workerIds = await registerWorkers(boss, rt, worked);
    unlisten = await wakeWorkersOnNotify(rt, boss, workerIds);
    stopStatistics = keepQueueStatisticsFresh(rt);
    stopSchedules = startSchedules(boss, jobDefinitions, log);
  }

  // Imported here, not above: a worker process and the replay thread never load the web tier (Apollo, route files, OpenAPI).
  const web = roles.web ? await (await import('./web-tier')).startWebTier({ env, rt, log, metrics }) : undefined;

  // A worker-only process has no front door: METRICS_PORT gives it one for /metrics, on loopback unless a token guards it.
  const metricsServer =
    metrics && !roles.web && env.METRICS_PORT !== undefined
      ? await serveMetrics(metrics, { port: env.METRICS_PORT, host: env.METRICS_TOKEN ? env.HOST : '127.0.0.1', token: env.METRICS_TOKEN })
      : undefined;

  // The replay thread's drain lines are its parent's: one pair of lines per process, counting both engines.
  const drainLog = options.reportTo ? log.debug.bind(log) : log.info.bind(log);
  let stopping: Promise<DrainReport> | undefined;
  const stop = (options: StopOptions = {}) =>
    (stopping ??= (async () => {
      const started = performance.now();
      const deadlineMs = options.deadlineMs ?? env.SHUTDOWN_TIMEOUT_MS;
      drainLog(
        {
          reason: options.reason,
          deadline_ms: deadlineMs,
          requests_in_flight: web?.httpDrain.inFlight ?? 0,
          attempts_in_flight: engine?.inFlightCount,
        },
        'shutting down: draining',
      );
      const [requests, engineDrain, threadReport] = await Promise.all([
        web ? web.httpDrain.drain(deadlineMs) : { requestsAnswered: 0, requestsCutOff: 0 },
        (async () => {
          if (!engine) return undefined;
          // No more fetching: wakes are ignored and pg-boss's fetch loops end after their current batch.
          await unlisten?.().catch(() => {});
          for (const id of [...(workerIds?.values() ?? [])].flat()) await boss.offWork({ id }).catch(() => {});
          return engine.stop(deadlineMs - (performance.now() - started));
        })(),
        replayThread?.stop({ deadlineMs: deadlineMs - (performance.now() - started), reason: options.reason }),
      ]);
      const attempts = addDrains(engineDrain, threadReport?.attempts);
      const report: DrainReport = { ms: Math.round(performance.now() - started), ...requests, attempts };
      await web?.close();
      stopStatistics?.();
      stopSchedules?.();
      stopProbing?.();
      await rt.jobs.wakesSent();
      await boss.stop({ graceful: true, timeout: 1000, wait: true }).catch(() => {});
      await metricsServer?.close();
      await metricsSql?.end({ timeout: 2 });
      await rt.close();
      if (db.embedded) expectDatabaseShutdown(boss, log);
      await db.embedded?.stop();
      drainLog(
        {
          ms: report.ms,
          requests_answered: report.requestsAnswered,
          requests_cut_off: report.requestsCutOff,
          attempts_finished: attempts?.finished,
          attempts_released: attempts?.released,
          attempts_returned_unsent: attempts?.returnedUnsent,
        },
        'shut down: drained',
      );
      return report;
    })());
  const replayThread = await replayThreadStarting;
  // The thread's pool beside the process's own in the pool gauges, as pool="replays".
  if (replayThread) metrics?.readPools(() => withPool(rt.poolUsages(), 'replays', replayThread.pool()));
  return { url: web?.url, metricsUrl: metricsServer?.url, rt, demo, stop };
}

/** What the process's engines did at the drain: this thread's and the replay thread's, added up. */
function addDrains(a: EngineDrain | undefined, b: EngineDrain | undefined): EngineDrain | undefined {
  if (!a || !b) return a ?? b;
  return {
    returnedUnsent: a.returnedUnsent + b.returnedUnsent,
    inFlightAtStop: a.inFlightAtStop + b.inFlightAtStop,
    finished: a.finished + b.finished,
    released: a.released + b.released,
  };
}

/** `pools` with `usage` under `name`, when there is one (a thread that has not reported yet has none). */
function withPool(pools: Record<string, PoolUsage>, name: string, usage: PoolUsage | undefined): Record<string, PoolUsage> {
  return usage ? { ...pools, [name]: usage } : pools;
}
