// The few parts of autocannon 8's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    pipelining?: number;
    timeout?: number;
    overallRate?: number;
    /** Per-request hooks: setupRequest may rewrite each request (e.g. a fresh header value every time). */
    requests?: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- autocannon passes its own request object
      setupRequest?: (req: any, context: Record<string, unknown>) => object;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }[];
  }

  interface Histogram {
    average: number;
    mean: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p99: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    resets: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
  export type { Instance, Options, Result };
}
