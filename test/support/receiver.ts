import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { createTestCa } from './test-ca';

export interface ReceivedRequest {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body bytes as received, before any parsing. */
  rawBody: Buffer;
  /** The status the responder chose for it (the sender may not have read the answer, e.g. if it died). */
  status?: number;
}

/** `after`: the answer waits for it (then `delayMs` more), e.g. to keep a sender's attempts in flight until a test lets them go. */
export type Responder = (
  req: ReceivedRequest,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number; after?: Promise<unknown> };

/** A real HTTPS webhook receiver on loopback, with a certificate from the run's test CA. */
export async function startReceiver(
  respond: Responder = () => ({ status: 200, body: 'ok' }),
  opts: { port?: number } = {},
): Promise<{
  url: string;
  port: number;
  received: ReceivedRequest[];
  setResponder(r: Responder): void;
  close(): Promise<void>;
}> {
  const ca = createTestCa(inject('testCaDir'));
  const received: ReceivedRequest[] = [];
  let responder = respond;
  const server: Server = createServer({ cert: ca.serverCert, key: ca.serverKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: ReceivedRequest = {
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        rawBody: Buffer.concat(chunks),
      };
      received.push(entry);
      const answer = responder(entry, received.length - 1);
      entry.status = answer.status;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      const delayed = () => (answer.delayMs ? setTimeout(send, answer.delayMs) : send());
      if (answer.after) void answer.after.then(delayed);
      else delayed();
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port ?? 0, '::', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}/hooks`,
    port,
    received,
    setResponder(r) {
      responder = r;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
