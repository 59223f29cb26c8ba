import type { Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { seedQuote, spawnServer, spawnWorker, useProcesses, type ServerProcess } from '../support/processes';
import { call } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { rawExchange, type RawReply } from '../support/raw-http';
import type { ReceivedRequest, Responder } from '../support/receiver';
import { createTestPartner, type TestPartner } from '../support/service';

// SIGTERM (and a second signal) on real processes over one database: requests and webhook attempts in
// flight at the signal are finished, or cut off at SHUTDOWN_TIMEOUT_MS and given to another worker.
// The in-process service is web-only (WORKERS=off): it only seeds and reads the database.

const WORKER_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_TIMEOUT_MS: '30000',
  WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,5',
  LOG_LEVEL: 'info',
};

const fx = useProcesses({ teardown: 'kill' });
const { track, killLeftovers } = fx;
const subscribe = (partner: TestPartner, path: string, respond: Responder) =>
  fx.subscribe({ ...partner, baseUrl: fx.svc.url }, path, respond);

const orderIdOf = (r: ReceivedRequest) => (JSON.parse(r.rawBody.toString()) as { data: { object: { id: string } } }).data.object.id;
const portOf = (p: ServerProcess) => Number(new URL(p.url).port);
const outputOf =
  (...ps: ServerProcess[]) =>
  () =>
    ps.map((p) => p.output.join('')).join('\n');

/** The JSON log line with this message, parsed. */
function logLine(p: ServerProcess, msg: string): Record<string, unknown> | undefined {
  for (const line of p.output.join('').split('\n')) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed.msg === msg) return parsed;
  }
  return undefined;
}

interface Sent {
  /** When the connection was established (performance.now()); undefined: never connected. */
  connectedAt?: number;
  reply?: RawReply;
  error?: string;
}

/** POST /partner/orders on a connection of its own; the body is written `bodyDelayMs` after the headers. */
function postOrder(port: number, partner: TestPartner, quoteId: string, bodyDelayMs = 0): { sent: Sent; done: Promise<void> } {
  const body = JSON.stringify({ quote_id: quoteId });
  const head =
    `POST /partner/orders HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-client-id: ${partner.clientId}\r\nx-api-key: ${partner.apiKey}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  const sent: Sent = {};
  const done = rawExchange(port, (socket: Socket) => {
    socket.once('connect', () => (sent.connectedAt = performance.now()));
    socket.write(head + body.slice(0, 5));
    const rest = () => socket.write(body.slice(5));
    if (bodyDelayMs > 0) setTimeout(rest, bodyDelayMs);
    else rest();
  }).then(
    (reply) => void (sent.reply = reply),
    (error: NodeJS.ErrnoException) => void (sent.error = error.code ?? error.message),
  );
  return { sent, done };
}

describe('SIGTERM to a web+worker process mid-burst', () => {
  it('answers every request it accepted, says draining on /readyz, finishes the attempts in flight, exits 0; a new worker delivers the rest once', async () => {
    await killLeftovers();
    const deadlineMs = 10_000;
    const web = await track(spawnServer(fx.svc.databaseUrl, { ...WORKER_ENV, WORKERS: 'on', SHUTDOWN_TIMEOUT_MS: String(deadlineMs) }));
    const port = portOf(web);
    const partner = { ...(await createTestPartner(fx.svc)), baseUrl: web.url };
    // Slow enough that attempts are in flight at the signal, well within the deadline.
    const subscription = await subscribe(partner, '/burst', () => ({ status: 200, delayMs: 1500 }));
    const quotes = await Promise.all(Array.from({ length: 40 }, () => seedQuote(fx.svc, partner)));

    const first = quotes.slice(0, 20).map((q) => postOrder(port, partner, q));
    await waitFor('webhook attempts in flight at the receiver', () => fx.receiver.received.filter((r) => r.path === '/burst').length >= 3, {
      timeoutMs: 15_000,
      context: outputOf(web),
    });
    // Accepted before the signal: a connection with no request yet, and a request whose body is still coming.
    let probeConnected = false;
    let writeProbe: (() => void) | undefined;
    const probe = rawExchange(port, (socket) => {
      socket.once('connect', () => (probeConnected = true));
      writeProbe = () => socket.write(`GET /readyz HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    });
    const slow = postOrder(port, partner, quotes[20]!, 1000);
    const second = quotes.slice(21).map((q) => postOrder(port, partner, q));
    await waitFor('the probe and the slow request connected', () => probeConnected && slow.sent.connectedAt !== undefined);

    const signalledAt = performance.now();
    web.signal('SIGTERM');
    await waitFor('the drain begun', () => logLine(web, 'shutting down: draining'), { context: outputOf(web) });
    writeProbe!();
    const readyz = await probe;
    expect(readyz.status).toBe(503);
    expect(JSON.parse(readyz.body)).toEqual({ status: 'draining' });
    expect(readyz.headers.connection).toBe('close');
    // A new connection is refused once the accept window (at most 200 ms, server/boot/http-drain.ts) has closed:
    // one made within it is accepted and answered like the rest.
    await settle(300, 'the accept window closed');
    const late = postOrder(port, partner, quotes[0]!);
    await late.done;
    expect(late.sent.error).toBe('ECONNREFUSED');

    const all = [...first, slow, ...second];
    await Promise.all(all.map((r) => r.done));
    const { code } = await web.exited;
    const exitMs = performance.now() - signalledAt;
    expect(code, web.output.join('')).toBe(0);
    expect(exitMs).toBeLessThan(deadlineMs);

    // Every request that connected before the signal was answered; none was reset; later ones were refused.
    const accepted = all.filter((r) => r.sent.connectedAt !== undefined && r.sent.connectedAt < signalledAt);
    expect(accepted.length).toBeGreaterThanOrEqual(22);
    const diagnosis = () =>
      JSON.stringify({
        signalledAt,
        requests: all.map((r, i) => ({ i, c: r.sent.connectedAt, s: r.sent.reply?.status ?? r.sent.error })),
      }) + web.output.join('');
    for (const r of accepted) expect(r.sent.reply?.status, diagnosis()).toBe(201);
    for (const r of all)
      expect(r.sent.reply?.status ?? r.sent.error, JSON.stringify(r.sent)).toSatisfy((v) => v === 201 || v === 'ECONNREFUSED');
    expect(slow.sent.reply?.status).toBe(201);
    const orderIds = all.flatMap((r) => (r.sent.reply?.status === 201 ? [(JSON.parse(r.sent.reply.body) as { id: string }).id] : []));

    const drained = logLine(web, 'shut down: drained')!;
    expect(drained, web.output.join('')).toBeTruthy();
    // At least the slow request and the /readyz probe were answered during the drain.
    expect(drained.requests_answered as number).toBeGreaterThanOrEqual(2);
    expect(drained.requests_cut_off).toBe(0);
    expect(drained.attempts_released).toBe(0);
    expect(drained.attempts_finished as number).toBeGreaterThan(0);
    console.log(
      `[drain] SIGTERM mid-burst: exit 0 after ${exitMs.toFixed(0)} ms; ${accepted.length} requests accepted before the signal, all answered; ` +
        `drain log: ${JSON.stringify({ ...drained, level: undefined, time: undefined, pid: undefined, hostname: undefined })}`,
    );

    // The attempts the process gave back unsent, and the events it never fetched, go to a new worker: each once.
    const worker = await track(spawnWorker(fx.svc.databaseUrl, WORKER_ENV));
    await waitFor(
      'every order delivered',
      () => new Set(fx.receiver.received.filter((r) => r.path === '/burst').map(orderIdOf)).size === orderIds.length,
      { timeoutMs: 60_000, intervalMs: 200, context: outputOf(worker) },
    );
    const got = fx.receiver.received.filter((r) => r.path === '/burst');
    expect(got.length).toBe(orderIds.length);
    expect(new Set(got.map(orderIdOf))).toEqual(new Set(orderIds));
    expect(new Set(got.map((r) => r.headers['x-service-event-id'])).size).toBe(orderIds.length);
    // The receiver logs a request before it answers (1.5 s later): wait for the records.
    const rows = await waitFor(
      'every delivery recorded',
      () =>
        fx.svc.rt.db.execute<{ status: string; attempts: number; recorded: number }>(sql`
          select d.status, d.attempts, (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as recorded
          from webhook_deliveries d where d.subscription_id = ${subscription}`),
      { until: (rows) => rows.every((r) => r.status !== 'pending'), timeoutMs: 15_000 },
    );
    expect(rows.length).toBe(orderIds.length);
    expect(rows.filter((r) => !(r.status === 'succeeded' && r.attempts === 1 && r.recorded === 1))).toEqual([]);
    await worker.stop();
  }, 180_000);
});

describe('attempts still in flight at the deadline', () => {
  it('are cut off unrecorded and given back at once: a new worker sends each again (same event id), recorded once', async () => {
    await killLeftovers();
    const first = await track(spawnWorker(fx.svc.databaseUrl, { ...WORKER_ENV, SHUTDOWN_TIMEOUT_MS: '1000' }));
    const partner = await createTestPartner(fx.svc);
    const seen = new Map<string, number>();
    // Each event's first attempt is held far past the deadline; later ones are answered at once.
    const subscription = await subscribe(partner, '/stuck', (req) => {
      const id = req.headers['x-service-event-id']!;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen.get(id) === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 };
    });
    const orders = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await call(
          'POST',
          '/partner/orders',
          { ...partner, baseUrl: fx.svc.url },
          { quote_id: await seedQuote(fx.svc, partner) },
        );
        expect(res.status).toBe(201);
        return res.body.id as string;
      }),
    );
    await waitFor('every first attempt held open', () => seen.size === 5, { timeoutMs: 15_000, context: outputOf(first) });

    const signalledAt = performance.now();
    first.signal('SIGTERM');
    const { code } = await first.exited;
    const exitMs = performance.now() - signalledAt;
    expect(code, first.output.join('')).toBe(0);
    const drained = logLine(first, 'shut down: drained')!;
    expect(drained.attempts_finished).toBe(0);
    expect(drained.attempts_released as number).toBeGreaterThanOrEqual(5);
    // Released, not left to lapse: nothing recorded, nobody holds them.
    const held = await fx.svc.rt.db.execute<{ status: string; attempts: number; claimed: boolean; recorded: number }>(sql`
      select d.status, d.attempts, d.claimed_until is not null as claimed,
        (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as recorded
      from webhook_deliveries d where d.subscription_id = ${subscription}`);
    expect(held).toEqual(Array.from({ length: 5 }, () => ({ status: 'pending', attempts: 0, claimed: false, recorded: 0 })));

    const startedAt = performance.now();
    const second = await track(spawnWorker(fx.svc.databaseUrl, WORKER_ENV));
    await waitFor('every event sent again', () => [...seen.values()].filter((n) => n === 2).length === 5, {
      timeoutMs: 20_000,
      context: outputOf(second),
    });
    const ms = performance.now() - startedAt;
    console.log(
      `[drain] deadline 1 s: exit 0 after ${exitMs.toFixed(0)} ms, 5 attempts released; a new worker sent them within ${ms.toFixed(0)} ms of its start`,
    );
    // Well under a claim's lapse (WEBHOOK_CLAIM_SECONDS, 30 s) plus a sweep.
    expect(ms).toBeLessThan(15_000);
    const got = fx.receiver.received.filter((r) => r.path === '/stuck');
    expect(new Set(got.map(orderIdOf))).toEqual(new Set(orders));
    await waitFor(
      'each delivery recorded as one successful attempt',
      async () =>
        (
          await fx.svc.rt.db.execute<{ ok: boolean }>(sql`
            select bool_and(d.status = 'succeeded' and d.attempts = 1
              and (select count(*) from webhook_attempts a where a.delivery_id = d.id) = 1) as ok
            from webhook_deliveries d where d.subscription_id = ${subscription}`)
        )[0]?.ok,
      { timeoutMs: 10_000 },
    );
    await second.stop();
  }, 120_000);
});

describe('a second signal', () => {
  it('exits at once, non-zero, saying so', async () => {
    await killLeftovers();
    const web = await track(spawnServer(fx.svc.databaseUrl, { ...WORKER_ENV, WORKERS: 'on', SHUTDOWN_TIMEOUT_MS: '60000' }));
    const partner = await createTestPartner(fx.svc);
    await subscribe(partner, '/second', () => ({ status: 200, delayMs: 60_000 }));
    const res = await call('POST', '/partner/orders', { ...partner, baseUrl: web.url }, { quote_id: await seedQuote(fx.svc, partner) });
    expect(res.status).toBe(201);
    await waitFor('the attempt held open', () => fx.receiver.received.some((r) => r.path === '/second'), {
      timeoutMs: 15_000,
      context: outputOf(web),
    });
    web.signal('SIGTERM');
    await waitFor('the drain begun', () => logLine(web, 'shutting down: draining'), { context: outputOf(web) });
    await settle(1200, 'past the window in which a signal is taken for the same one relayed by npm');
    const at = performance.now();
    web.signal('SIGTERM');
    const { code } = await web.exited;
    const ms = performance.now() - at;
    expect(code).not.toBe(0);
    expect(ms).toBeLessThan(2000);
    expect(web.output.join('')).toMatch(/second SIGTERM while draining: exiting now/);
    console.log(`[drain] second SIGTERM: exit ${code} after ${ms.toFixed(0)} ms`);
  }, 60_000);
});
