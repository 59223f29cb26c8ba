import { spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import path from 'node:path';
import type { LocalCa } from '@/server/boot/local-ca';
import { newId } from '@/server/ids';
import { REPO_ROOT } from './processes';

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

/** autocannon in a process of its own (not this event loop, which serves the receiver) against one receiver path. */
export async function driveReceiverAlone(
  receiver: BenchReceiver,
  ca: LocalCa,
  seconds: number,
  connections: number,
): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const secret = 'whsec_' + randomBytes(32).toString('base64');
  receiver.secrets.set('/direct', secret);
  const body = JSON.stringify({
    id: newId(),
    object: 'event',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type: 'order.created',
    data: {
      object: {
        id: newId(),
        object: 'order',
        status: 'created',
        external_id: 'bench-direct',
        fee: { amount: 743, currency: 'USD' },
        status_history: [],
      },
    },
  });
  // Signed once: `t` would be stale for a partner's verifier, but this receiver checks only the HMAC.
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const args = [
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-m',
    'POST',
    '-j',
    '-H',
    'content-type=application/json',
    '-H',
    `x-service-signature=${signature}`,
    '-H',
    'x-service-event-id=evt_direct',
    '-b',
    body,
    `https://localhost:${receiver.port}/direct`,
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(path.join(REPO_ROOT, 'node_modules/.bin/autocannon'), args, {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caCert },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon exited ${code}: ${err}`))));
  });
  const result = JSON.parse(output) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    '2xx': number;
    duration: number;
  };
  return { rps: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}
