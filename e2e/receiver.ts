import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureLocalCa } from '../server/boot/local-ca';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTPS webhook receiver on loopback with a certificate of the run's CA (made by global-setup.ts), answering `status` (200). */
export async function startReceiver(status = 200): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const ca = ensureLocalCa(process.env.E2E_CA_DIR!, { name: 'pdp e2e CA', days: 2 });
  const received: Received[] = [];
  const server = createServer({ cert: ca.serverCert, key: ca.serverKey }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
