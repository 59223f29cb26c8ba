import { connect } from 'node:net';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

// Requests that never reach a route: refused by Node's HTTP parser or by the front door before any
// handler runs. Each still gets the JSON error envelope and an X-Request-Id, as every answer does.

let svc: TestService;
let port: number;

beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
});

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are over a fresh connection and reads the one answer until the server closes. */
function raw(request: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
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
