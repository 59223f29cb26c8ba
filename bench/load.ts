import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; undefined: closed loop, as fast as the server answers. */
  rate?: number;
  /**
   * A sequence each connection sends in turn instead of one request (e.g. a quote, then an order for
   * it): `onResponse` keeps what a later request's `setupRequest` needs in the connection's context.
   */
  requests?: SequenceStep[];
}

export interface SequenceStep {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: { body?: string; path?: string }, context: Record<string, unknown>) => object;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

export interface LoadResult {
  /** Responses received (any status). */
  responses: number;
  ok: number;
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  statusCounts: Record<string, number>;
  seconds: number;
  /** 2xx responses per second. */
  rps: number;
  /** Latency of 2xx responses, milliseconds (exact: every response time is kept, not autocannon's whole-ms histogram). */
  p50: number;
  p99: number;
  /** process.hrtime (CLOCK_MONOTONIC) microseconds: the run's window, to cut a CPU profile to it. */
  startedAtUs: number;
  finishedAtUs: number;
}

/** Load with autocannon: `connections` connections, each sending its next request when the last one answered (at most `rate` in all per second). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const startedAtUs = Number(process.hrtime.bigint() / 1000n);
  const instance = autocannon({
    url: spec.url,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    duration: spec.durationSeconds,
    pipelining: 1,
    timeout: 10,
    ...(spec.rate ? { overallRate: spec.rate } : {}),
    ...(spec.requests ? { requests: spec.requests } : {}),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode < 200 || statusCode > 299) return;
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const finishedAtUs = Number(process.hrtime.bigint() / 1000n);
  const sorted = latencies.subarray(0, count).sort();
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const seconds = (finishedAtUs - startedAtUs) / 1e6;
  return {
    responses,
    ok: count,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCounts,
    seconds,
    rps: count / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    startedAtUs,
    finishedAtUs,
  };
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
