import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';

export interface PacedFloodResult {
  sent: number;
  /** Due but not sent: `connections` requests were still waiting for their answers. */
  skipped: number;
  statusCounts: Record<string, number>;
  errors: number;
  seconds: number;
}

/**
 * Wrong keys at a steady `perSecond` (a fresh random key each) from `localAddress`, another loopback
 * address than the partner's (Linux routes all of 127/8 to lo), so that the failure throttle refuses
 * the flood's address and not the partner's: what a partner sees beside someone else's broken or
 * hostile client. Paced every 10 ms; at most `connections` requests in flight (what falls due beyond
 * that is skipped and counted, not sent later in a burst).
 */
export function pacedWrongKeys(
  url: string,
  options: { perSecond: number; seconds: number; localAddress: string; connections: number },
): Promise<PacedFloodResult> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, localAddress: options.localAddress });
  const statusCounts: Record<string, number> = {};
  let sent = 0;
  let due = 0;
  let skipped = 0;
  let errors = 0;
  let inFlight = 0;
  const started = performance.now();
  const send = () => {
    sent++;
    inFlight++;
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: { 'x-client-id': 'ci_attacker', 'x-api-key': `sk_sandbox_${randomBytes(24).toString('hex')}` },
      },
      (res) => {
        statusCounts[res.statusCode ?? 0] = (statusCounts[res.statusCode ?? 0] ?? 0) + 1;
        res.resume();
        res.on('end', () => inFlight--);
      },
    );
    req.on('error', () => {
      errors++;
      inFlight--;
    });
    req.end();
  };
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      if (elapsed >= options.seconds) {
        clearInterval(timer);
        agent.destroy();
        resolve({ sent, skipped, statusCounts, errors, seconds: elapsed });
        return;
      }
      for (const until = Math.floor(elapsed * options.perSecond); due < until; due++) {
        if (inFlight < options.connections) send();
        else skipped++;
      }
    }, 10);
  });
}
