import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, type RawReply } from '../support/raw-http';
import { startTestService, type TestService } from '../support/service';

// Requests that never reach a route: refused by Node's HTTP parser or by the front door before any
// handler runs. Each still gets the JSON error envelope and an X-Request-Id, as every answer does.

let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
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
