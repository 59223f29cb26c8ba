import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { LocalCa } from '@/server/boot/local-ca';

export interface Receipt {
  at: number;
  key: string;
}

export interface BenchReceiver {
  port: number;
  receipts: Receipt[];
  invalid: number;
  secrets: Map<string, string>;
  close(): Promise<void>;
}

/** HTTPS on loopback; checks each request's X-Service-Signature (spec part 5) against its path's secret. */
export async function startReceiver(ca: LocalCa): Promise<BenchReceiver> {
  const receiver: BenchReceiver = { port: 0, receipts: [], invalid: 0, secrets: new Map(), close: async () => {} };
  const server: Server = createServer({ cert: ca.serverCert, key: ca.serverKey, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const secret = receiver.secrets.get(req.url ?? '');
      const header = String(req.headers['x-service-signature'] ?? '');
      const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
      const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
      const expected = secret && t ? createHmac('sha256', secret).update(`${t}.`).update(Buffer.concat(chunks)).digest('hex') : '';
      if (!v1 || !expected || !timingSafeEqual(Buffer.from(v1), Buffer.from(expected))) receiver.invalid++;
      receiver.receipts.push({ at, key: `${req.url} ${req.headers['x-service-event-id']}` });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
