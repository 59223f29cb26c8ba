import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureLocalCa } from '../server/boot/local-ca';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** From now on, requests are received but not answered until release() (the delivery stays in flight). */
  hold(): void;
  /** Answers every held request and stops holding. */
  release(): void;
  /** Requests received and not answered yet. */
  readonly held: number;
  close(): Promise<void>;
}

/** An HTTPS webhook receiver on loopback with a certificate of the run's CA (made by global-setup.ts), answering `status` (200). */
export async function startReceiver(status = 200): Promise<Receiver> {
  const ca = ensureLocalCa(process.env.E2E_CA_DIR!, { name: 'pdp e2e CA', days: 2 });
  const received: Received[] = [];
  let holding = false;
  const waiting: (() => void)[] = [];
  const server = createServer({ cert: ca.serverCert, key: ca.serverKey }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const answer = () => res.writeHead(status, { 'content-type': 'text/plain' }).end('received');
      if (holding) waiting.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = () => {
    holding = false;
    for (const answer of waiting.splice(0)) answer();
  };
  return {
    url: `https://localhost:${port}`,
    received,
    hold: () => {
      holding = true;
    },
    release,
    get held() {
      return waiting.length;
    },
    close: () => {
      release();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
