import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type PgBoss from 'pg-boss';
import { sql } from 'drizzle-orm';
import { startBoss } from '@/jobs/boss';
import { keepQueueStatisticsFresh } from '@/jobs/queue-stats';
import { createQueues, registerWorkers } from '@/jobs/registry';
import { wakeWorkersOnNotify } from '@/jobs/wake';
import type { Env } from './config/env';
import { loadSecretBox } from './crypto/encryption-key';
import { resolveDatabase } from './database';
import { createFrontDoor } from './http/front-door';
import { prepareNext } from './http/next-app';
import { loadRouteTable } from './http/route-table';
import { createLogger, type Logger } from './logger';
import { closeRuntime, initRuntime, type Runtime } from './runtime';
import { seedDemo, type DemoCredentials } from './seed/demo';

export interface Service {
  /** Base URL of the HTTP server; undefined for a worker-only process. */
  url?: string;
  rt: Runtime;
  demo?: DemoCredentials;
  stop(): Promise<void>;
}

export interface ServiceRoles {
  web: boolean;
  workers: boolean;
}

/** Starts one process of the service: web tier, workers, or both (the default for `npm start`). */
export async function startService(env: Env, roles: ServiceRoles, log: Logger = createLogger(env.LOG_LEVEL)): Promise<Service> {
  // Before any database work: with DATABASE_URL and no key, start-up stops here with a clear message.
  const secretBox = loadSecretBox(env);
  const db = await resolveDatabase(env, log);
  const rt = initRuntime(env, db.url, log);
  rt.secretBox = secretBox;
  const demo = !env.DATABASE_URL && env.SEED_DEMO ? await seedDemo(rt) : undefined;

  // Every process gets a queue client (the web tier enqueues); only worker processes work and schedule.
  const boss: PgBoss = await startBoss({ databaseUrl: db.url, log, schedule: roles.workers });
  await createQueues(boss);
  rt.boss = boss;
  let unlisten: (() => Promise<void>) | undefined;
  let stopStatistics: (() => void) | undefined;
  if (roles.workers) {
    unlisten = await wakeWorkersOnNotify(rt, boss, await registerWorkers(boss, rt));
    stopStatistics = keepQueueStatisticsFresh(rt);
  }

  let server: Server | undefined;
  let url: string | undefined;
  if (roles.web) {
    const routes = await loadRouteTable();
    const next = env.CONSOLE === 'on' ? await prepareNext(log) : undefined;
    server = createFrontDoor({ routes, next, readiness: () => databaseReachable(rt) });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(env.PORT, env.HOST, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    url = env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (server) {
        server.closeIdleConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
      stopStatistics?.();
      await unlisten?.().catch(() => {});
      await boss.stop({ graceful: true, timeout: 5000, wait: true }).catch(() => {});
      await closeRuntime();
      await db.embedded?.stop();
    })());
  return { url, rt, demo, stop };
}

async function databaseReachable(rt: Runtime): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 2000)));
  try {
    return await Promise.race([rt.db.execute(sql`select 1`).then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
