import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Env } from '@/server/config/env';
import { createGraphQLExecutor } from '@/server/graphql/executor';
import { docsHandler } from '@/server/http/docs-site';
import { createFrontDoor } from '@/server/http/front-door';
import { openApiDocuments } from '@/server/http/openapi';
import type { PartnerServices } from '@/server/http/services';
import type { Logger } from '@/server/logger';
import { flushRequestCountsPeriodically } from '@/server/onboarding/request-counts';
import { frontDoorMetrics, type ProcessMetrics } from './metrics';
import { trackForDrain, type HttpDrain } from './http-drain';
import { prepareNext } from './next-app';
import { loadGuides, scalarRenderer } from './docs';
import { loadOperatorRouteTable, loadRouteTable } from './route-table';
import type { Runtime } from './runtime';

/** A process's HTTP side, listening. */
export interface WebTier {
  url: string;
  /** Requests in flight, and the drain that answers them (http-drain.ts). */
  httpDrain: HttpDrain;
  /** After the drain: the operator API stopped, the last requests' counts written. */
  close(): Promise<void>;
}

/**
 * The front door with the partner routes, the operator API (GraphQL), the docs and the console. start-process.ts
 * loads this module only for a process that serves HTTP: a worker process and the replay thread never load Apollo,
 * the route files or the OpenAPI builder.
 */
export async function startWebTier({
  env,
  rt,
  log,
  metrics,
}: {
  env: Env;
  rt: Runtime;
  log: Logger;
  metrics?: ProcessMetrics;
}): Promise<WebTier> {
  const stopCounting = flushRequestCountsPeriodically(rt.requestCounts, rt.db, (error) =>
    log.warn({ err: error }, 'request counts not flushed'),
  );
  const routes = await loadRouteTable();
  const services: PartnerServices = { ...rt, openApiDocument: openApiDocuments(routes) };
  const graphql = await createGraphQLExecutor(rt);
  const operator = { routes: await loadOperatorRouteTable(), services: { ...rt, graphql: graphql.execute } };
  const next = env.CONSOLE === 'on' ? await prepareNext(log) : undefined;
  const docs = docsHandler({ guides: loadGuides(), renderer: scalarRenderer(), openApiDocument: services.openApiDocument, log });
  const server = createFrontDoor({
    routes,
    services,
    operator,
    next,
    docs,
    readiness: () => databaseReachable(rt),
    readsFrom: rt.readReplica ? () => (rt.readReplica!.onReplica ? 'replica' : 'primary') : undefined,
    // Asked only once requests arrive, after the drain below is made.
    draining: () => httpDrain.draining,
    metrics: metrics && frontDoorMetrics(metrics, env.METRICS_TOKEN),
  });
  const httpDrain = trackForDrain(server);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    httpDrain,
    close: async () => {
      await graphql.stop();
      // After the server closed: the last requests' counts are in.
      await stopCounting();
    },
  };
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
