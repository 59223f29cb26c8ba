import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestPartner, NYC, startTestService, type TestService } from '../support/service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});

function postQuote(headers: Record<string, string>, host = '127.0.0.1'): Promise<number> {
  const port = Number(new URL(svc.url).port);
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method: 'POST', path: '/partner/quotes', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(NYC));
  });
}

describe('the front door stamps the socket address', () => {
  it('lets an allowlisted caller in (IPv4 over a dual-stack socket, and IPv6)', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.1/32', '::1/128'] });
    expect(await postQuote(p.headers, '127.0.0.1')).toBe(201);
    expect(await postQuote(p.headers, '::1')).toBe(201);
  });

  it('ignores a client-sent copy of the internal address header', async () => {
    const p = await createTestPartner(svc, { allowlist: ['203.0.113.0/24'] });
    expect(await postQuote({ ...p.headers, 'x-pdp-client-address': '203.0.113.9' })).toBe(403);
    expect(await postQuote({ ...p.headers, 'X-PDP-Client-Address': '203.0.113.9' })).toBe(403);
  });
});
