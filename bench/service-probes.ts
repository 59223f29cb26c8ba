import { readdirSync, readFileSync } from 'node:fs';
import type postgres from 'postgres';
import { ARCHIVE_COMPLETED_AFTER_SECONDS, ARCHIVE_FAILED_AFTER_SECONDS } from '@/jobs/boss';

// What the soak samples at the end of each window: the service's own /metrics, its process's memory
// from /proc, and the size and dead tuples of the tables a delivery writes to, from Postgres.

const LAG = 'pdp_webhook_delivery_lag_seconds';

export interface MetricsSample {
  /** The delivery lag histogram's cumulative bucket counts, by upper bound in seconds (+Inf last). */
  lagBuckets: [number, number][];
  /** V8's heap: in use (garbage included until collected) and committed; memory outside it that JS objects hold (Buffers). */
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** prom-client's event-loop delay since the previous scrape (it resets at each), ms: p50, p99, max. */
  loopDelayMs: { p50: number; p99: number; max: number };
}

/** GET /metrics as a local client (the front door serves it to loopback without METRICS_TOKEN). */
export async function scrapeMetrics(serviceUrl: string): Promise<MetricsSample> {
  const res = await fetch(`${serviceUrl}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics: HTTP ${res.status}`);
  const text = await res.text();
  const lagBuckets: [number, number][] = [];
  const gauges = new Map<string, number>();
  for (const line of text.split('\n')) {
    const bucket = new RegExp(`^${LAG}_bucket\\{le="([^"]+)"\\} (\\S+)$`).exec(line);
    if (bucket) lagBuckets.push([bucket[1] === '+Inf' ? Infinity : Number(bucket[1]), Number(bucket[2])]);
    const gauge =
      /^(nodejs_heap_size_used_bytes|nodejs_heap_size_total_bytes|nodejs_external_memory_bytes|nodejs_eventloop_lag_(?:p50|p99|max)_seconds) (\S+)$/.exec(
        line,
      );
    if (gauge) gauges.set(gauge[1]!, Number(gauge[2]));
  }
  lagBuckets.sort((a, b) => a[0] - b[0]);
  return {
    lagBuckets,
    heapUsedBytes: gauges.get('nodejs_heap_size_used_bytes') ?? NaN,
    heapTotalBytes: gauges.get('nodejs_heap_size_total_bytes') ?? NaN,
    externalBytes: gauges.get('nodejs_external_memory_bytes') ?? NaN,
    loopDelayMs: {
      p50: (gauges.get('nodejs_eventloop_lag_p50_seconds') ?? NaN) * 1000,
      p99: (gauges.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
      max: (gauges.get('nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000,
    },
  };
}

/**
 * The q-quantile of what a histogram observed between two scrapes, as Prometheus's histogram_quantile
 * reads it: the bucket the rank falls in, linearly within it (so never finer than the buckets:
 * 50-100 ms, 100-250 ms, ...). NaN when nothing was observed.
 */
export function quantileBetween(q: number, before: [number, number][], after: [number, number][]): number {
  const earlier = new Map(before);
  const deltas = after.map(([le, n]) => [le, n - (earlier.get(le) ?? 0)] as const);
  const total = deltas.at(-1)?.[1] ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, n] of deltas) {
    if (n >= rank) return le === Infinity ? lower : lower + (le - lower) * ((rank - below) / (n - below || 1));
    [lower, below] = [le, n];
  }
  return lower;
}

/**
 * The resident set of the service: the largest process of the group `startChild` made (the service, beside
 * whatever it started in its group).
 */
export function serviceRss(groupId: number): { pid: number; bytes: number } {
  let best = { pid: groupId, bytes: NaN };
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== groupId) continue;
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]);
      if (Number.isNaN(best.bytes) || kb * 1024 > best.bytes) best = { pid: Number(name), bytes: kb * 1024 };
    } catch {
      // gone meanwhile
    }
  }
  return best;
}

export interface TableSample {
  /** `events`, ..., `pgboss.job webhooks.fanout` (one queue's partition), `pgboss.archive`. */
  table: string;
  bytes: number;
  live: number;
  dead: number;
  autovacuums: number;
}

/** The tables every order and delivery writes, and pg-boss's job partitions (one per queue) and archive. */
export const CHURNING_TABLES = ['events', 'webhook_deliveries', 'webhook_attempts', 'orders', 'quotes'];

/**
 * Size with indexes and TOAST, and the statistics collector's live and dead tuple estimates (what
 * autovacuum decides on). pg-boss 10 partitions pgboss.job by queue: each partition is its own table.
 * The history tables are partitioned by week (server/history/): their weeks are summed under the table's name.
 */
export async function sampleTables(sql: postgres.Sql): Promise<TableSample[]> {
  return sql<TableSample[]>`
    select "table", sum(bytes)::float8 as bytes, sum(live)::float8 as live, sum(dead)::float8 as dead, sum(autovacuums)::int as autovacuums
    from (
      select case when n.nspname = 'public' then coalesce(parent.relname, c.relname) when q.name is not null then 'pgboss.job ' || q.name
               else n.nspname || '.' || c.relname end as "table",
        pg_total_relation_size(c.oid) as bytes,
        coalesce(s.n_live_tup, 0) as live, coalesce(s.n_dead_tup, 0) as dead,
        coalesce(s.autovacuum_count, 0) as autovacuums
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_inherits i on n.nspname = 'public' and i.inhrelid = c.oid
      left join pg_class parent on parent.oid = i.inhparent
      left join pg_stat_user_tables s on s.relid = c.oid
      left join pgboss.queue q on n.nspname = 'pgboss' and q.partition_name = c.relname
      where c.relkind = 'r'
        and ((n.nspname = 'public' and coalesce(parent.relname, c.relname) = any(${sql.array(CHURNING_TABLES)}))
          or (n.nspname = 'pgboss' and (c.relname = 'archive' or q.name is not null)))
    ) t
    group by 1 order by 1`;
}

export interface ScanSample {
  /** pg-boss's two upkeep scans: time, and shared buffers touched (hit or read: the work, less noisy than time on a busy machine). */
  upkeepMs: number;
  upkeepPages: number;
  /** One fetch of 50 fan-out jobs, and one look for lapsed claims: buffers touched. */
  fetchPages: number;
  sweepPages: number;
  /** The partial indexes those two read: they hold only waiting jobs and held claims, and the dead entries vacuum has not yet removed. */
  fetchIndexBytes: number;
  claimsIndexBytes: number;
}

// pg-boss 10's maintenance (every MAINTENANCE_INTERVAL_SECONDS, jobs/boss.ts) runs two statements over
// the whole of pgboss.job, neither with an index on its predicate: failing expired active jobs, and
// moving jobs completed more than archiveCompletedAfterSeconds ago (jobs/boss.ts) to pgboss.archive. The same predicates, counted, show what each pass costs as the table grows.
const UPKEEP_SCANS = [
  `select count(*) from pgboss.job where state = 'active' and (started_on + expire_in) < now()`,
  `select count(*) from pgboss.job where (state <> 'failed' and completed_on < now() - interval '${ARCHIVE_COMPLETED_AFTER_SECONDS} seconds')
     or (state = 'failed' and completed_on < now() - interval '${ARCHIVE_FAILED_AFTER_SECONDS} seconds') or (state < 'active' and keep_until < now())`,
];
// The reads of the two hot loops, without their locks: pg-boss's fetch of the fan-out queue (every
// 0.5 s and on every wake; the index jobs/boss.ts makes), and the lapsed-claims sweeper (every 5 s,
// server/delivery/leases.ts). Both read a partial index from its start, where the entries of jobs
// fetched and claims ended stay, dead, until a vacuum of the table removes them.
const FETCH = `select id from pgboss.job where name = 'webhooks.fanout' and state < 'active' and start_after < now()
  order by priority desc, created_on, id limit 50`;
const SWEEP = `select id from webhook_deliveries where status = 'pending' and claimed_until is not null and claimed_until < now()
  order by claimed_until limit 1000`;

type Plan = { 'QUERY PLAN': [{ Plan: Record<string, number>; 'Execution Time': number }] };

async function explain(sql: postgres.Sql, statement: string): Promise<{ ms: number; pages: number }> {
  const [row] = await sql.unsafe<Plan[]>(`explain (analyze, buffers, format json) ${statement}`);
  const plan = row!['QUERY PLAN'][0];
  return { ms: plan['Execution Time'], pages: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0) };
}

export async function sampleScans(sql: postgres.Sql): Promise<ScanSample> {
  let upkeepMs = 0;
  let upkeepPages = 0;
  for (const scan of UPKEEP_SCANS) {
    const { ms, pages } = await explain(sql, scan);
    upkeepMs += ms;
    upkeepPages += pages;
  }
  const [sizes] = await sql<{ fetch: number; claims: number }[]>`
    select coalesce((select sum(pg_relation_size(i.indexrelid)) from pgboss.queue q
             join pg_index i on i.indrelid = ('pgboss.' || quote_ident(q.partition_name))::regclass
             where q.name = 'webhooks.fanout' and pg_get_indexdef(i.indexrelid) like '%priority DESC, created_on, id%'), 0)::float8 as fetch,
      (select sum(pg_relation_size(relid)) from pg_partition_tree('webhook_deliveries_claims_idx'))::float8 as claims`;
  return {
    upkeepMs,
    upkeepPages,
    fetchPages: (await explain(sql, FETCH)).pages,
    sweepPages: (await explain(sql, SWEEP)).pages,
    fetchIndexBytes: sizes!.fetch,
    claimsIndexBytes: sizes!.claims,
  };
}
