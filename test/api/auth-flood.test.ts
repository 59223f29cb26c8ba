import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/logs';
import { call, clientFor } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// A client sending wrong keys: every unknown key would cost a database query and a log line. Failed
// authentications are throttled per address (429 before any query), known keys keep working from
// the same address, unknown keys never evict known ones from the cache, and the 401s are logged
// once per address and window with a count.

let svc: TestService;
let partner: TestPartner;
const logs = captureLogs('info');

beforeAll(async () => {
  svc = await startTestService({ AUTH_FAILURES_PER_SECOND: '5', LOG_LEVEL: 'info' }, { log: logs.log });
  partner = await createTestPartner(svc);
});

const wrongKey = () => ({
  baseUrl: partner.baseUrl,
  headers: { 'x-client-id': 'ci_nobody', 'x-api-key': `sk_sandbox_${randomBytes(24).toString('hex')}` },
});

describe('a flood of wrong keys from one address', () => {
  it('is throttled with 429 and Retry-After, while a known key from the same address still works', async () => {
    expect((await clientFor(partner).GET('/partner/event-types')).response.status).toBe(200);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 120; i++) {
      const res = await call('GET', '/partner/event-types', wrongKey());
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get('retry-after');
        expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_failed_authentications' });
      }
    }
    const first429 = statuses.indexOf(429);
    console.log(
      `[auth flood] 401 for the first ${first429} wrong keys (burst 50 at 5/s), then 429 for ${statuses.filter((s) => s === 429).length}`,
    );
    expect(first429).toBeGreaterThanOrEqual(45);
    expect(first429).toBeLessThanOrEqual(60);
    expect(statuses.slice(first429).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // The partner's own key, known and cached, is served from the same address meanwhile.
    expect((await clientFor(partner).GET('/partner/event-types')).response.status).toBe(200);

    // 401s and 429s of the flood: a line for the first, then one per window carrying the count.
    const lines = logs.entries().filter((e) => e.msg === 'partner request' && (e.status === 401 || e.status === 429));
    expect(lines.length).toBeLessThanOrEqual(2);
  });

  it('unknown keys never evict a known one from the cache', { timeout: 60_000 }, async () => {
    await svc.rt.credentials.lookup(partner.apiKey);
    for (let i = 0; i < 10_050; i++) await svc.rt.credentials.lookup(`sk_sandbox_${randomBytes(24).toString('hex')}`);
    let queried = false;
    const known = await svc.rt.credentials.lookup(partner.apiKey, () => {
      queried = true;
    });
    expect(known?.clientId).toBe(partner.clientId);
    expect(queried).toBe(false);
  });
});
