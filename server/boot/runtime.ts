import type PgBoss from 'pg-boss';
import postgres from 'postgres';
import { createDbClient, type Database, type DbClient, type PoolUsage, type QueryObserver } from '@/db/client';
import { routedReads } from '@/db/read-route';
import { pgBossJobQueue } from '@/jobs/job-queue';
import { parseCidr, type Cidr } from '@/server/auth/cidr';
import { CredentialCache } from '@/server/auth/credential-cache';
import { FailureThrottle } from '@/server/auth/failure-throttle';
import { smtpMailer } from './smtp-mailer';
import type { Env } from '@/server/config/env';
import type { Deps } from '@/server/context';
import type { SecretBox } from '@/server/crypto/secret-box';
import type { Logger } from '@/server/logger';
import type { Metrics } from '@/server/observability';
import { jobQueueNotStarted } from '@/server/outbox/job-queue';
import { RequestCounter } from '@/server/onboarding/request-counts';
import { RateLimiter } from '@/server/rate-limit/limiter';
import { signInGates } from '@/server/sessions/sign-in-gates';
import { systemResolver, type Resolver } from '@/server/delivery/url-policy';
import { cachingResolver } from '@/server/delivery/dns-cache';
import { readReplica, type ReadReplica } from './read-replica';

/**
 * One process's dependencies: one pool (and the operator API's own; with DATABASE_READ_URL, a read pool
 * of each on the replica), one credential cache, one rate limiter, one job queue client.
 */
export interface Runtime extends Deps {
  db: Database;
  credentials: CredentialCache;
  authFailures: FailureThrottle;
  rateLimiter: RateLimiter;
  trustedProxies: Cidr[];
  requestCounts: RequestCounter;
  /** The pg-boss client, when this process started one (every service process does; the admin CLI only to enqueue). */
  boss?: PgBoss;
  /** The pool's connections in use and statements waiting, for the metrics. */
  poolUsage(): PoolUsage;
  /** Each pool's use by name (`primary`, `graphql`, and with a replica `read`, `graphql_read`), for the metrics. */
  poolUsages(): Record<string, PoolUsage>;
  /**
   * With DATABASE_READ_URL: whether `read` goes to the replica now, and its lag (server/boot/read-replica.ts);
   * boot starts its probe in a web process. Undefined without a replica: `read` is `db`.
   */
  readReplica?: ReadReplica;
  /**
   * The operator API's own pool (GRAPHQL_DB_POOL_MAX): GraphQL operations run there, so however many
   * operators ask, partners keep DB_POOL_MAX; and the cancel requests their deadline sends can reach only
   * operator statements. On the shared pool, in two runs of the concurrent overview test, a partner's quote
   * answered 500 (its insert returned no row): postgres.js pipelines callers' statements on a busy
   * connection, and a cancel there reached a statement that was not the deadline's. Here such a stray cancel
   * can reach only another operator's statement (its operation answers operation_timeout; a transaction
   * rolls back whole). Turning pipelining off (max_pipeline 0) breaks postgres.js transactions
   * (UNSAFE_TRANSACTION). Postgres also ends any statement of this pool past GRAPHQL_TIMEOUT_MS by itself,
   * should a cancel be lost. postgres.js connects on first use: a process that serves no GraphQL opens none.
   */
  operatorPool: Pick<DbClient, 'db' | 'sql'> & { read: Database };
  /** Closes the pools. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env: Env;
  databaseUrl: string;
  log: Logger;
  secretBox?: SecretBox;
  boss?: PgBoss;
  /** How webhook hosts resolve (tests point names at chosen addresses); the system's DNS by default. */
  resolver?: Resolver;
  /** Sees every statement of the pool; for tests that count queries (production never sets it). */
  onQuery?: QueryObserver;
  /** The same for the read pools on DATABASE_READ_URL's replica: tests see which statements went there. */
  onReadQuery?: QueryObserver;
  /** The process's metrics (server/boot/metrics.ts); the verbs and the engine report to it. */
  metrics?: Metrics;
}

export function createRuntime({
  env,
  databaseUrl,
  log,
  secretBox,
  boss,
  resolver,
  onQuery,
  onReadQuery,
  metrics,
}: RuntimeOptions): Runtime {
  const connectTimeoutSeconds = Math.max(1, Math.ceil(env.DB_TIMEOUT_MS / 1000));
  const client = createDbClient(databaseUrl, { max: env.DB_POOL_MAX, connectTimeoutSeconds, onQuery });
  const operatorOptions = { max: env.GRAPHQL_DB_POOL_MAX, connectTimeoutSeconds, statementTimeoutMs: env.GRAPHQL_TIMEOUT_MS };
  const operatorPool = createDbClient(databaseUrl, { ...operatorOptions, onQuery, applicationName: 'partner-delivery-graphql' });
  const reads = env.DATABASE_READ_URL ? replicaPools(env.DATABASE_READ_URL, client, operatorPool) : undefined;
  return {
    ...client,
    read: reads?.read ?? client.db,
    readReplica: reads?.replica,
    poolUsages: () => ({
      primary: client.poolUsage(),
      graphql: operatorPool.poolUsage(),
      ...(reads ? { read: reads.client.poolUsage(), graphql_read: reads.operatorClient.poolUsage() } : {}),
    }),
    operatorPool: { db: operatorPool.db, sql: operatorPool.sql, read: reads?.operatorRead ?? operatorPool.db },
    env,
    log,
    jobs: boss ? pgBossJobQueue(boss) : jobQueueNotStarted,
    secretBox,
    // The system's DNS, each answer kept WEBHOOK_DNS_CACHE_SECONDS (server/delivery/dns-cache.ts).
    resolver:
      resolver ??
      (env.WEBHOOK_DNS_CACHE_SECONDS > 0
        ? cachingResolver(systemResolver, { ttlMs: env.WEBHOOK_DNS_CACHE_SECONDS * 1000, maxNames: 10_000 })
        : systemResolver),
    metrics,
    mailer: smtpMailer(env),
    credentials: new CredentialCache(client.db, env),
    authFailures: new FailureThrottle(env.AUTH_FAILURES_PER_SECOND),
    rateLimiter: new RateLimiter(client.db),
    signInGates: signInGates(env),
    requestCounts: new RequestCounter(),
    trustedProxies: env.TRUSTED_PROXY_CIDRS.map((text) => {
      const cidr = parseCidr(text);
      if (!cidr) throw new Error(`TRUSTED_PROXY_CIDRS: '${text}' is not a CIDR`);
      return cidr;
    }),
    boss,
    close: async () =>
      void (await Promise.all(
        [client.sql, operatorPool.sql, reads?.client.sql, reads?.operatorClient.sql, reads?.probeSql].map((sql) =>
          sql?.end({ timeout: 2 }),
        ),
      )),
  };

  // The replica's pools, the same sizes as the primary's (another server, another connection budget), each
  // named in pg_stat_activity; postgres.js connects on first use, so a process that never reads opens none.
  function replicaPools(url: string, primary: DbClient, operatorPrimary: DbClient) {
    const readClient = createDbClient(url, {
      max: env.DB_POOL_MAX,
      connectTimeoutSeconds,
      onQuery: onReadQuery,
      applicationName: 'partner-delivery-read',
    });
    const operatorClient = createDbClient(url, {
      ...operatorOptions,
      onQuery: onReadQuery,
      applicationName: 'partner-delivery-graphql-read',
    });
    // The probe's own connection: a busy read pool does not delay it, nor does a stuck replica hold it past 2 s.
    const probeSql = postgres(url, {
      max: 1,
      connect_timeout: connectTimeoutSeconds,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { application_name: 'partner-delivery-read-probe', statement_timeout: 2000 },
    });
    const replica = readReplica({ primary: primary.sql, replica: probeSql, maxLagSeconds: env.DATABASE_READ_MAX_LAG_SECONDS, log });
    const onReplica = () => replica.onReplica;
    return {
      client: readClient,
      operatorClient,
      probeSql,
      replica,
      read: routedReads(primary.db, readClient.db, onReplica),
      operatorRead: routedReads(operatorPrimary.db, operatorClient.db, onReplica),
    };
  }
}
