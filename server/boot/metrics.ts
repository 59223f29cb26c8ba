import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type postgres from 'postgres';
import type { PoolUsage } from '@/db/client';
import type { Logger } from '@/server/logger';
import type { Metrics } from '@/server/observability';
import type { ReadReplica } from './read-replica';
import { NOTICE_STAGES } from '@/server/notices/stages';
import { VERSIONS } from '@/server/versions/registry';
import { RequestMetrics } from './request-metrics';

export interface ProcessMetrics extends Metrics {
  registry: Registry;
  /** Where the database pool gauges read from: the process's pools by name, once the runtime made them. */
  readPools(read: () => Record<string, PoolUsage>): void;
  /** Where the read replica's gauges read from (absent without DATABASE_READ_URL). */
  readReplica(replica: ReadReplica | undefined): void;
  /** Prometheus text of every family; queue and replay gauges are read from the database now. */
  scrape(): Promise<string>;
}

// The `api_version` label: a known version, or `none` (an answer no version rendered: the console, health checks).
const KNOWN_VERSIONS = new Set(VERSIONS);
const versionLabel = (version: string | undefined) => (version !== undefined && KNOWN_VERSIONS.has(version) ? version : 'none');

// One statement per scrape, its predicate pg-boss's index of waiting jobs (job_i5: name,
// start_after, where state < 'active'), so finished jobs cost nothing. Measured: 12.8 ms with
// 50,000 jobs waiting (a sequential scan then: every row matches), once per process scraped.
async function readQueues(sql: postgres.Sql) {
  return sql<{ name: string; depth: number; oldest: number }[]>`
    select q.name, coalesce(j.depth, 0)::int as depth, coalesce(j.oldest, 0)::float8 as oldest
    from pgboss.queue q left join (
      select name, count(*) as depth,
        extract(epoch from now() - min(start_after) filter (where start_after <= now())) as oldest
      from pgboss.job where state < 'active' group by name
    ) j on j.name = q.name`;
}

// Subscriptions are few (a handful per partner): counting them at scrape reads a small table.
async function readReplays(sql: postgres.Sql) {
  const [row] = await sql<{ running: number; queued: number; matched: number; enqueued: number; failing: number; disabled: number }[]>`
    select count(*) filter (where status = 'running')::int as running, count(*) filter (where status = 'queued')::int as queued,
      coalesce(sum(events_matched), 0)::int as matched, coalesce(sum(events_enqueued), 0)::int as enqueued,
      (select count(*) from webhook_subscriptions where deleted_at is null and status = 'enabled' and failing_since is not null)::int
        as failing,
      (select count(*) from webhook_subscriptions where deleted_at is null and status = 'disabled')::int as disabled
    from webhook_replays where status in ('queued', 'running')`;
  return row!;
}

// Pins and subscriptions are a few per partner: grouping them by version at scrape reads two small tables.
async function readVersionsInUse(sql: postgres.Sql) {
  return sql<{ kind: string; api_version: string; n: number }[]>`
    select 'environment' as kind, version as api_version, count(*)::int as n from api_version_pins group by version
    union all
    select 'subscription', api_version, count(*)::int from webhook_subscriptions where deleted_at is null group by api_version`;
}

/** The process's registry and the families the README lists; `sql` is read at scrape time only. */
export function createMetrics(sql: postgres.Sql, log: Logger): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const http = new RequestMetrics(registry, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], [...VERSIONS, 'none']);
  const attempts = new Counter({
    name: 'pdp_webhook_attempts_total',
    help: 'Webhook attempts recorded, by result (succeeded, retrying, failed, skipped, unrecorded, lost), error kind, trigger and the API version of the body.',
    labelNames: ['result', 'error_kind', 'trigger', 'api_version'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'pdp_webhook_deliveries_total',
    help: 'Deliveries that reached a final state in this process, by result (succeeded, failed, skipped) and the API version of the event.',
    labelNames: ['result', 'api_version'],
    registers: [registry],
  });
  const lateRenewals = new Counter({
    name: 'pdp_webhook_claim_renewals_late_total',
    help: "Renewals of the delivery engine's claims that came more than half a claim after the last one: claims may have lapsed.",
    registers: [registry],
  });
  const notices = new Counter({
    name: 'pdp_webhook_notices_total',
    help: 'Failure notices sent: by stage (failing, warning_50, warning_90, disabled, recovered) and channel (email: one per message; event).',
    labelNames: ['stage', 'channel'],
    registers: [registry],
  });
  // Every series at 0 from the start, so a rate() or an alert on one stage has something to read.
  for (const stage of NOTICE_STAGES) for (const channel of ['email', 'event']) notices.inc({ stage, channel }, 0);
  const attemptDuration = new Histogram({
    name: 'pdp_webhook_attempt_duration_seconds',
    help: 'Time a webhook attempt took, from sending to the receiver answering or failing.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'pdp_webhook_delivery_lag_seconds',
    help: 'When a scheduled attempt started minus when it was due (event creation, or the retry time).',
    // From 5 ms: a healthy engine starts a live attempt within a few, and with 50 ms first every wait short of that was
    // one bucket (the replay bench could not tell where a live event's 62 ms went).
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });

  let queues: Promise<Awaited<ReturnType<typeof readQueues>>> | undefined;
  const queuesOnce = () => (queues ??= readQueues(sql).finally(() => setImmediate(() => (queues = undefined))));
  new Gauge({
    name: 'pdp_queue_depth',
    help: 'Jobs waiting in each pg-boss queue (created or retry, due or not).',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const q of await queuesOnce().catch(warn)) this.set({ queue: q.name }, q.depth);
    },
  });
  new Gauge({
    name: 'pdp_queue_oldest_job_age_seconds',
    help: 'How long the oldest due job of each queue has waited since it became due (0 when none is due).',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const q of await queuesOnce().catch(warn)) this.set({ queue: q.name }, q.oldest);
    },
  });
  let replays: Promise<Awaited<ReturnType<typeof readReplays>>> | undefined;
  const replaysOnce = () => (replays ??= readReplays(sql).finally(() => setImmediate(() => (replays = undefined))));
  new Gauge({
    name: 'pdp_replays_active',
    help: 'Replays queued or running.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const r = await replaysOnce().catch(() => undefined);
      if (!r) return;
      this.set({ status: 'running' }, r.running);
      this.set({ status: 'queued' }, r.queued);
    },
  });
  new Gauge({
    name: 'pdp_replay_events',
    help: 'Events of the active replays: matched by their windows, and enqueued for delivery so far.',
    labelNames: ['stage'],
    registers: [registry],
    async collect() {
      const r = await replaysOnce().catch(() => undefined);
      if (!r) return;
      this.set({ stage: 'matched' }, r.matched);
      this.set({ stage: 'enqueued' }, r.enqueued);
    },
  });

  new Gauge({
    name: 'pdp_webhook_subscriptions',
    help: 'Subscriptions (not deleted) that are enabled with a failing streak, or disabled (by an operator, or automatically).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const r = await replaysOnce().catch(() => undefined);
      if (!r) return;
      this.set({ state: 'failing' }, r.failing);
      this.set({ state: 'disabled' }, r.disabled);
    },
  });

  new Gauge({
    name: 'pdp_api_versions_in_use',
    help: 'Partner environments pinned to each API version, and live webhook subscriptions on each: who still speaks an old one.',
    labelNames: ['kind', 'api_version'],
    registers: [registry],
    async collect() {
      const rows = await readVersionsInUse(sql).catch(() => undefined);
      if (!rows) return;
      // Every known version has its series, 0 when unused, so a version nobody speaks any more reads 0, not absent.
      for (const kind of ['environment', 'subscription']) for (const version of VERSIONS) this.set({ kind, api_version: version }, 0);
      for (const r of rows) this.set({ kind: r.kind, api_version: versionLabel(r.api_version) }, r.n);
    },
  });

  let pools: (() => Record<string, PoolUsage>) | undefined;
  new Gauge({
    name: 'pdp_db_pool_connections',
    help:
      "The process's database pools: connections in use by a statement or transaction, and the pool's size. Pool primary " +
      '(DB_POOL_MAX), graphql (the operator API, GRAPHQL_DB_POOL_MAX), with DATABASE_READ_URL read and graphql_read on the replica, ' +
      "and with the replay thread replays (the thread's own, DB_POOL_MAX).",
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      for (const [pool, usage] of Object.entries(pools?.() ?? {})) {
        this.set({ pool, state: 'in_use' }, usage.inUse);
        this.set({ pool, state: 'max' }, usage.max);
      }
    },
  });
  new Gauge({
    name: 'pdp_db_pool_waiting',
    help: 'Statements and transactions waiting for a connection of each pool (beyond its size at once).',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const [pool, usage] of Object.entries(pools?.() ?? {})) this.set({ pool }, usage.waiting);
    },
  });
  // Only with DATABASE_READ_URL: an unlabelled gauge never set still reads 0, which would say "reads left the replica".
  function replicaGauges(replica: ReadReplica) {
    new Gauge({
      name: 'pdp_db_read_replica_lag_seconds',
      help: "The read replica's lag behind the primary at the last probe (an upper bound, to the probe's second); -1 while it does not answer.",
      registers: [registry],
      collect() {
        this.set(replica.lagSeconds ?? -1);
      },
    });
    new Gauge({
      name: 'pdp_db_reads_on_replica',
      help: 'With DATABASE_READ_URL: 1 while list reads go to the replica, 0 while they go to the primary (replica unreachable or behind).',
      registers: [registry],
      collect() {
        this.set(replica.onReplica ? 1 : 0);
      },
    });
  }

  function warn(err: unknown): never[] {
    log.warn({ err }, 'metrics: queue depths not read');
    return [];
  }

  return {
    registry,
    scrape: () => registry.metrics(),
    readPools: (read) => void (pools = read),
    readReplica: (replica) => replica && replicaGauges(replica),
    httpRequest(route, method, status, seconds, apiVersion) {
      http.observe(route, method, status, versionLabel(apiVersion), seconds);
    },
    attempt(result, errorKind, trigger, apiVersion, durationSeconds, lagSeconds) {
      attempts.inc({ result, error_kind: errorKind, trigger, api_version: versionLabel(apiVersion) });
      if (durationSeconds !== undefined) attemptDuration.observe(durationSeconds);
      if (lagSeconds !== undefined) lag.observe(lagSeconds);
    },
    delivery(result, apiVersion) {
      deliveries.inc({ result, api_version: versionLabel(apiVersion) });
    },
    claimRenewalLate() {
      lateRenewals.inc();
    },
    notice(stage, channel) {
      notices.inc({ stage, channel });
    },
  };
}

/**
 * Who may read /metrics: with METRICS_TOKEN, whoever sends it as a bearer token; without, only a
 * client on this host that no proxy forwarded (a local reverse proxy adds X-Forwarded-For/Forwarded).
 */
export function metricsAllowed(
  token: string | undefined,
  remoteAddress: string | undefined,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  if (token) {
    const sent = headers.authorization;
    if (typeof sent !== 'string') return false;
    // Compared as digests, in constant time: the token's length and prefix stay unknown to a guesser.
    return timingSafeEqual(digest(sent), digest(`Bearer ${token}`));
  }
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined) return false;
  return remoteAddress === '127.0.0.1' || remoteAddress === '::1' || remoteAddress === '::ffff:127.0.0.1';
}

/** What the front door needs: where to report requests, what to answer GET /metrics with, and to whom. */
export function frontDoorMetrics(metrics: ProcessMetrics, token: string | undefined) {
  return {
    observe: metrics,
    scrape: async () => ({ contentType: metrics.registry.contentType, text: await metrics.scrape() }),
    allowed: (req: IncomingMessage) => metricsAllowed(token, req.socket.remoteAddress, req.headers),
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A worker-only process's own small server: GET /metrics and nothing else. */
export async function serveMetrics(
  metrics: ProcessMetrics,
  { port, host, token }: { port: number; host: string; token?: string },
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics' || req.method !== 'GET') return void res.writeHead(404).end();
    if (!metricsAllowed(token, req.socket.remoteAddress, req.headers)) return void res.writeHead(403).end();
    metrics.scrape().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shown}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
