import { beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, type RawReply } from '../support/raw-http';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

// A slow upload is the client's time, not the database's: a body that takes longer than the database
// deadline (REQUEST_TIMEOUT_MS) but arrives within REQUEST_BODY_TIMEOUT_MS is served; one slower
// still is a 408 with the error envelope, and never a 503 that blames the database.

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ REQUEST_TIMEOUT_MS: '1000', REQUEST_BODY_TIMEOUT_MS: '2000' });
  partner = await createTestPartner(svc);
});

/** POSTs `body` a byte at a time over `ms`, and reads the answer. */
function trickle(body: string, ms: number): Promise<RawReply> {
  return rawExchange(Number(new URL(svc.url).port), (socket) => {
    const headers = Object.entries(partner.headers).map(([k, v]) => `${k}: ${v}`);
    socket.write(
      `POST /partner/quotes HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${headers.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let i = 0;
    const timer = setInterval(
      () => {
        if (socket.destroyed || i >= body.length) return clearInterval(timer);
        socket.write(body[i++]!);
      },
      Math.max(1, Math.floor(ms / body.length)),
    );
  });
}

describe('a slow request body', () => {
  it('slower than the database deadline but within the body timeout: served', async () => {
    const reply = await trickle(JSON.stringify(NYC), 1500);
    expect(reply.status, reply.body).toBe(201);
  });

  it('slower than the body timeout: 408 request_timeout in the error envelope, not a 503', async () => {
    const reply = await trickle(JSON.stringify(NYC), 4000);
    expect(reply.status, reply.body).toBe(408);
    expect(reply.headers['x-request-id']).toMatch(/^req_/);
    const json = JSON.parse(reply.body.trim()) as { error: { type: string; code: string } };
    expect(json.error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
  });
});
