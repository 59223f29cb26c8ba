import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as createQuoteRoute } from '@/app/partner/quotes/route';
import { rawExchange, type RawReply } from '../support/raw-http';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

// Requests that never reach a route: refused by Node's HTTP parser or by the front door before any
// handler runs. Each still gets the JSON error envelope and an X-Request-Id, as every answer does.

let svc: TestService;
let port: number;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
  partner = await createTestPartner(svc);
});

/** Sends bytes as they are and reads the one answer; the client ends its side after a second. */
function raw(request: string): Promise<RawReply> {
  return rawExchange(port, (socket) => {
    socket.write(request);
    setTimeout(() => socket.end(), 1000);
  });
}

describe('answers below the route table', () => {
  it.each([
    [
      'a header block over 16 KiB',
      `GET /partner/quotes HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    ['an invalid Host', 'GET /partner/quotes HTTP/1.1\r\nHost: exa mple.com:xx\r\n\r\n', 400, 'invalid_host'],
    [
      'a Content-Length that lies (two values)',
      'POST /partner/quotes HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello',
      400,
      'malformed_request',
    ],
    ['a malformed request line', 'GET /partner quotes HTTP/1.1 extra\r\nHost: localhost\r\n\r\n', 400, 'malformed_request'],
    ['a bad header name', 'GET /partner/quotes HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n', 400, 'malformed_request'],
  ])('%s → %s, JSON envelope, X-Request-Id', async (_what, request, status, code) => {
    const reply = await raw(request);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.headers['x-request-id']).toMatch(/^req_/);
    const body = JSON.parse(reply.body) as { error: { type: string; code: string; request_id: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code, request_id: reply.headers['x-request-id'] });
  });
});

/** The reply's JSON error envelope, checked against its X-Request-Id. */
function envelope(reply: RawReply): { type: string; code: string; request_id: string } {
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers['x-request-id']).toMatch(/^req_/);
  const body = JSON.parse(reply.body) as { error: { type: string; code: string; request_id: string } };
  expect(body.error.request_id).toBe(reply.headers['x-request-id']);
  return body.error;
}

describe('hosts and paths the native path reads', () => {
  // @hono/node-server answered these 400 text/plain with no body: URL spells [::ffff:127.0.0.1] as [::ffff:7f00:1].
  it.each(['[::ffff:127.0.0.1]', '[::1]', '[2001:DB8::1]'])('Host: %s:<port> is a host: the partner route answers', async (host) => {
    const headers = Object.entries(partner.headers).map(([k, v]) => `${k}: ${v}`);
    const reply = await raw(
      `GET /partner/event-types HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n${headers.join('\r\n')}\r\n\r\n`,
    );
    expect(reply.status, reply.body).toBe(200);
    expect(reply.headers['x-request-id']).toMatch(/^req_/);
  });

  it('an IPv6 Host on the operator API (a Web handler): its own JSON 401, not a bare 400', async () => {
    const reply = await raw(`DELETE /api/session HTTP/1.1\r\nHost: [::ffff:127.0.0.1]:${port}\r\nConnection: close\r\n\r\n`);
    expect(reply.status, reply.body).toBe(401);
    expect(envelope(reply).code).toBe('unauthenticated');
  });

  it.each([
    ['an IPv6 literal that is not one', 'GET /partner/event-types HTTP/1.1\r\nHost: [::ffff:zz]:80\r\n\r\n', 400, 'invalid_host'],
    ['a backslash in the path', 'GET /partner\\event-types HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, 'invalid_request_target'],
    ['an unknown partner path', 'GET /partner/nothing-here HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n', 404, 'route_not_found'],
  ])('%s → %s in the envelope', async (_what, request, status, code) => {
    const reply = await raw(request);
    expect(reply.status, reply.body).toBe(status);
    expect(envelope(reply).code).toBe(code);
  });

  it('a body over 64 KiB declared, with a key: 413 in the envelope, and the connection closed', async () => {
    const headers = Object.entries(partner.headers).map(([k, v]) => `${k}: ${v}`);
    const reply = await raw(
      `POST /partner/quotes HTTP/1.1\r\nHost: localhost\r\n${headers.join('\r\n')}\r\nContent-Length: 70000\r\n\r\n{`,
    );
    expect(reply.status, reply.body).toBe(413);
    expect(reply.headers.connection).toBe('close');
    expect(envelope(reply).code).toBe('payload_too_large');
  });
});

describe("the route file's Web-standard export", () => {
  // Served by the same wrapper as the front door's native path: whoever calls a route as (Request) => Response gets the same answers.
  const call = (init: RequestInit) =>
    createQuoteRoute(new Request('http://localhost/partner/quotes', { method: 'POST', ...init }), {
      params: Promise.resolve({}),
      services: { ...svc.rt, openApiDocument: () => ({}) },
    });

  it('answers a quote as the front door does', async () => {
    const [web, native] = await Promise.all([
      call({ headers: partner.headers, body: JSON.stringify(NYC) }),
      fetch(`${svc.url}/partner/quotes`, { method: 'POST', headers: partner.headers, body: JSON.stringify(NYC) }),
    ]);
    expect(web.status).toBe(201);
    expect(native.status).toBe(201);
    expect(web.headers.get('x-request-id')).toMatch(/^req_/);
    const [a, b] = [(await web.json()) as Record<string, unknown>, (await native.json()) as Record<string, unknown>];
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(a.fee).toEqual(b.fee);
    expect([...web.headers.keys()].sort()).toEqual(
      [...native.headers.keys()].filter((k) => !['connection', 'content-length', 'date', 'keep-alive'].includes(k)).sort(),
    );
  });

  it('keeps the limits: 413 over 64 KiB, 415 for a body that is not JSON', async () => {
    const big = await call({ headers: partner.headers, body: JSON.stringify({ ...NYC, pad: 'x'.repeat(70_000) }) });
    expect(big.status).toBe(413);
    const text = await call({ headers: { ...partner.headers, 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { request_id: string } }).error.request_id).toBe(text.headers.get('x-request-id'));
  });
});

describe('property: whatever bytes arrive', () => {
  it('every answer is below 500, JSON, with an X-Request-Id', { timeout: 120_000 }, async () => {
    const token = fc.string({ unit: fc.constantFrom(...'abcXYZ09-_/?=%.:~ \t\r\n\u0000\u00e9@'.split('')), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'G E T', ''),
        token,
        fc.array(fc.tuple(token, token), { maxLength: 4 }),
        token,
        async (method, target, headers, body) => {
          const lines = [
            `${method} /${target} HTTP/1.1`,
            'Host: localhost',
            'Connection: close',
            ...headers.map(([k, v]) => `${k}: ${v}`),
            `Content-Length: ${Buffer.byteLength(body)}`,
          ];
          const reply = await raw(`${lines.join('\r\n')}\r\n\r\n${body}`);
          if (Number.isNaN(reply.status)) return; // the server closed without an answer (nothing was a request)
          expect(reply.status).toBeLessThan(500);
          expect(reply.headers['content-type']).toMatch(/^application\/json/);
          expect(reply.headers['x-request-id']).toMatch(/^req_/);
        },
      ),
      { numRuns: 60 },
    );
  });
});
