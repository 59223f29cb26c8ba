import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
});

interface From {
  /** Where to connect: 127.0.0.1 or ::1, never "localhost", so the address family is known. */
  host?: '127.0.0.1' | '::1';
  /** Source address of the connection; every 127.x.y.z works on Linux loopback. */
  localAddress?: string;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: { type: string; code: string; message: string; request_id: string } } & Record<string, unknown>;
}

/** POST /partner/quotes over a connection from a chosen source address (fetch cannot choose it). */
function postQuoteFrom(service: TestService, headers: Record<string, string | string[]>, from: From = {}): Promise<Reply> {
  const port = Number(new URL(service.url).port);
  const host = from.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port, localAddress: from.localAddress ?? host, method: 'POST', path: '/partner/quotes', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
          } catch {
            reject(new Error(`non-JSON ${res.statusCode} body: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(NYC));
  });
}

function expectForbidden(reply: Reply): void {
  expect(reply.status).toBe(403);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers['x-request-id']).toMatch(/^req_/);
  expect(reply.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed', request_id: reply.headers['x-request-id'] });
  expect(reply.body.error?.message).toEqual(expect.any(String));
}

describe('IP allowlist, socket address only', () => {
  const post = (p: TestPartner, from?: From, extra: Record<string, string> = {}) => postQuoteFrom(svc, { ...p.headers, ...extra }, from);

  it('a partner without an allowlist is reachable from any address', async () => {
    const p = await createTestPartner(svc);
    expect((await post(p, { localAddress: '127.0.0.1' })).status).toBe(201);
    expect((await post(p, { localAddress: '127.0.0.2' })).status).toBe(201);
    expect((await post(p, { host: '::1' })).status).toBe(201);
  });

  it('403 with the JSON envelope from outside the list, 201 from inside', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.1/32'] });
    expect((await post(p, { localAddress: '127.0.0.1' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.0.2' }));
  });

  it('CIDR edges: 127.0.0.0/31 admits .0 and .1 but not .2', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.0/31'] });
    expect((await post(p, { localAddress: '127.0.0.1' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.0.2' }));
    expectForbidden(await post(p, { localAddress: '127.0.0.3' }));
  });

  it('a /32 is exactly one address', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.2/32'] });
    expect((await post(p, { localAddress: '127.0.0.2' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.0.1' }));
    expectForbidden(await post(p, { localAddress: '127.0.0.3' }));
  });

  it('a host entry normalised from a wider spelling still matches (127.0.0.9/24 → 127.0.0.0/24)', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.9/24'] });
    expect((await post(p, { localAddress: '127.0.0.200' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.1.1' }));
  });

  it('any matching entry of several admits', async () => {
    const p = await createTestPartner(svc, { allowlist: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.3/32'] });
    expect((await post(p, { localAddress: '127.0.0.3' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.0.4' }));
  });

  it('IPv6: ::1/128 admits a client on [::1] and not an IPv4 loopback client', async () => {
    const p = await createTestPartner(svc, { allowlist: ['::1/128'] });
    expect((await post(p, { host: '::1' })).status).toBe(201);
    expectForbidden(await post(p, { host: '127.0.0.1' }));
  });

  it('an IPv4 entry does not admit the IPv6 loopback', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.0/8'] });
    expect((await post(p, { host: '127.0.0.1' })).status).toBe(201);
    expectForbidden(await post(p, { host: '::1' }));
  });

  it('an IPv4-mapped IPv6 entry matches the IPv4 client the dual-stack socket reports as ::ffff:127.0.0.1', async () => {
    const p = await createTestPartner(svc, { allowlist: ['::ffff:127.0.0.1/128'] });
    expect((await post(p, { localAddress: '127.0.0.1' })).status).toBe(201);
    expectForbidden(await post(p, { localAddress: '127.0.0.2' }));
    const wide = await createTestPartner(svc, { allowlist: ['::ffff:127.0.0.0/120'] });
    expect((await post(wide, { localAddress: '127.0.0.77' })).status).toBe(201);
  });

  it('authenticates before the allowlist: a bad key from a non-allowlisted address is 401, not 403', async () => {
    const p = await createTestPartner(svc, { allowlist: ['127.0.0.1/32'] });
    const outside = { localAddress: '127.0.0.2' };
    const cases: Record<string, string>[] = [
      { ...p.headers, 'x-api-key': 'sk_sandbox_wrong' },
      { 'content-type': 'application/json', 'x-client-id': p.clientId },
      { 'content-type': 'application/json' },
    ];
    for (const headers of cases) {
      const reply = await postQuoteFrom(svc, headers, outside);
      expect(reply.status).toBe(401);
      expect(reply.body.error?.type).toBe('authentication_error');
    }
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const p = await createTestPartner(svc, { allowlist: ['203.0.113.0/24'] });
    expectForbidden(await post(p, {}, { 'x-forwarded-for': '203.0.113.9' }));
    expectForbidden(await post(p, {}, { 'x-forwarded-for': '203.0.113.9, 203.0.113.10' }));
    expectForbidden(await post(p, { host: '::1' }, { 'x-forwarded-for': '203.0.113.9' }));
    expectForbidden(await post(p, {}, { 'x-real-ip': '203.0.113.9', forwarded: 'for=203.0.113.9' }));
  });

  it('ignores a client-sent X-PDP-Client-Address', async () => {
    const p = await createTestPartner(svc, { allowlist: ['203.0.113.0/24'] });
    expectForbidden(await post(p, {}, { 'x-pdp-client-address': '203.0.113.9' }));
    const bothSpellings = await postQuoteFrom(svc, { ...p.headers, 'X-PDP-Client-Address': ['203.0.113.9', '203.0.113.10'] });
    expectForbidden(bothSpellings);
  });
});

// Runs last: the runtime is one per process, so the first service stops before this one starts.
describe('IP allowlist behind a trusted proxy (TRUSTED_PROXY_CIDRS=127.0.0.1/32)', () => {
  let proxied: TestService;
  let p: TestPartner;

  beforeAll(async () => {
    await svc.stop();
    proxied = await startTestService({ WORKERS: 'off', TRUSTED_PROXY_CIDRS: '127.0.0.1/32' });
    p = await createTestPartner(proxied, { allowlist: ['203.0.113.0/24', '2001:db8::/32'] });
  });
  afterAll(() => proxied?.stop());

  const viaProxy = (headers: Record<string, string | string[]>, from: From = { localAddress: '127.0.0.1' }) =>
    postQuoteFrom(proxied, { ...p.headers, ...headers }, from);

  it('honours X-Forwarded-For from the trusted peer', async () => {
    expect((await viaProxy({ 'x-forwarded-for': '203.0.113.9' })).status).toBe(201);
    expect((await viaProxy({ 'x-forwarded-for': '2001:db8::7' })).status).toBe(201);
    expect((await viaProxy({ 'x-forwarded-for': '::ffff:203.0.113.9' })).status).toBe(201);
  });

  it('the right-most untrusted hop wins; entries a client wrote to its left are ignored', async () => {
    expect((await viaProxy({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9' })).status).toBe(201);
    expectForbidden(await viaProxy({ 'x-forwarded-for': '203.0.113.9, 198.51.100.1' }));
    // Trusted hops on the right are skipped.
    expect((await viaProxy({ 'x-forwarded-for': '203.0.113.9, 127.0.0.1' })).status).toBe(201);
    // Two headers read as one list, in order.
    expect((await viaProxy({ 'x-forwarded-for': ['198.51.100.1', '203.0.113.9'] })).status).toBe(201);
    expectForbidden(await viaProxy({ 'x-forwarded-for': ['203.0.113.9', '198.51.100.1'] }));
  });

  it('a malformed hop never lets a spoofed entry to its left through', async () => {
    expectForbidden(await viaProxy({ 'x-forwarded-for': '203.0.113.9, not-an-address' }));
    expectForbidden(await viaProxy({ 'x-forwarded-for': '203.0.113.9, 0x7f.1' }));
  });

  it('without X-Forwarded-For the trusted peer itself is the client', async () => {
    expectForbidden(await viaProxy({}));
  });

  it('ignores X-Forwarded-For from a peer outside TRUSTED_PROXY_CIDRS', async () => {
    expectForbidden(await viaProxy({ 'x-forwarded-for': '203.0.113.9' }, { localAddress: '127.0.0.2' }));
    expectForbidden(await viaProxy({ 'x-forwarded-for': '203.0.113.9' }, { host: '::1' }));
  });

  it('ignores a client-sent X-PDP-Client-Address even from the trusted peer', async () => {
    expectForbidden(await viaProxy({ 'x-pdp-client-address': '203.0.113.9' }));
    expectForbidden(await viaProxy({ 'x-pdp-client-address': '203.0.113.9', 'x-forwarded-for': '198.51.100.1' }));
  });

  it('still authenticates first', async () => {
    const reply = await postQuoteFrom(proxied, { ...p.headers, 'x-api-key': 'sk_sandbox_wrong', 'x-forwarded-for': '198.51.100.1' });
    expect(reply.status).toBe(401);
  });
});
