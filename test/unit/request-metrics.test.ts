import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from '@/server/boot/request-metrics';

// RequestMetrics keeps the request families in plain numbers (server/boot/request-metrics.ts says why): what /metrics
// prints of them must be what prom-client's own Counter and Histogram print for the same requests.

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const VERSIONS = ['2026-11-01', '2026-11-26', 'none'];

function promClientFamilies(registry: Registry) {
  const count = new Counter({
    name: 'pdp_http_requests_total',
    help: 'HTTP requests answered, by route pattern (or other), method, status class and the API version a partner answer was rendered in (or none).',
    labelNames: ['route', 'method', 'status_class', 'api_version'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'pdp_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route pattern and status class.',
    labelNames: ['route', 'status_class'],
    buckets: BOUNDS,
    registers: [registry],
  });
  return { count, duration };
}

// Series in any order: each family's HELP and TYPE, then its lines sorted.
async function lines(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').sort();
}

const statusClass = (status: number) => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other');
const request = fc.record({
  route: fc.constantFrom('/partner/orders', '/partner/orders/{id}', '/healthz', 'other', '/api/graphql'),
  method: fc.constantFrom('GET', 'POST', 'DELETE', 'OPTIONS', 'BREW'),
  status: fc.constantFrom(200, 201, 204, 304, 400, 404, 429, 500, 503, 99, 600),
  version: fc.constantFrom(...VERSIONS),
  seconds: fc.oneof(fc.constantFrom(0, ...BOUNDS), fc.double({ min: 0, max: 30, noNaN: true })),
});

describe('RequestMetrics', () => {
  it("prints the same families as prom-client's Counter and Histogram for the same requests", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
        const theirs = new Registry();
        const { count, duration } = promClientFamilies(theirs);
        const ours = new Registry();
        const metrics = new RequestMetrics(ours, BOUNDS, VERSIONS);
        for (const r of requests) {
          const method = ['GET', 'POST', 'DELETE', 'OPTIONS'].includes(r.method) ? r.method : 'other';
          count.inc({ route: r.route, method, status_class: statusClass(r.status), api_version: r.version });
          duration.observe({ route: r.route, status_class: statusClass(r.status) }, r.seconds);
          metrics.observe(r.route, r.method, r.status, r.version, r.seconds);
        }
        expect(await lines(ours)).toEqual(await lines(theirs));
      }),
      { numRuns: 200 },
    );
  });

  it('counts a bound itself in its bucket (le is "less than or equal")', async () => {
    const registry = new Registry();
    new RequestMetrics(registry, BOUNDS, VERSIONS).observe('/healthz', 'GET', 200, 'none', 0.005);
    const text = await registry.metrics();
    expect(text).toContain('pdp_http_request_duration_seconds_bucket{le="0.005",route="/healthz",status_class="2xx"} 1');
    expect(text).toContain('pdp_http_requests_total{route="/healthz",method="GET",status_class="2xx",api_version="none"} 1');
  });

  it('starts again from nothing when the registry is reset', async () => {
    const registry = new Registry();
    new RequestMetrics(registry, BOUNDS, VERSIONS).observe('/healthz', 'GET', 200, 'none', 0.001);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('route="/healthz"');
  });
});
