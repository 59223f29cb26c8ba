import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { HEARTBEAT_STALE_SECONDS } from '@/server/workers/heartbeat';
import { spawnWorker, useProcesses, type ServerProcess } from '../support/processes';
import { newOrder } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { parsePrometheus, scrape, sumSamples } from '../support/prometheus';
import type { ReceivedRequest } from '../support/receiver';
import { createTestPartner } from '../support/service';

// A worker process that stalls (SIGSTOP, then SIGCONT: the whole process frozen, as a long GC pause or a
// blocked event loop freezes it) while it holds attempts, beside a second worker whose sweeper runs. The
// issue (23, item 3): a stall longer than the claim let the sweepers return 1,000 attempts the stalled
// worker still held, and both workers sent them. Duplicates are counted at the receiver.

const CLAIM_SECONDS = 3; // the smallest WEBHOOK_CLAIM_SECONDS allowed: renewals every second
const SWEEP_MS = 500;
const IN_FLIGHT_BOUND = 4;
// Each answer takes a second: 2 a second from a worker whose share is 2 of the 4.
const RECEIVER_DELAY_MS = 1000;
const ORDERS = 30;
// Far below HEARTBEAT_STALE_SECONDS: no other worker may send the frozen one's attempts within it.
const FREEZE_SETTLE_MS = 2000;
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_CLAIM_SECONDS: String(CLAIM_SECONDS),
  WEBHOOK_SWEEP_INTERVAL_MS: String(SWEEP_MS),
  WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: String(IN_FLIGHT_BOUND),
  // Longer than any freeze here: an attempt in flight across the freeze gets its answer, it does not time out.
  WEBHOOK_TIMEOUT_MS: '40000',
};

const fx = useProcesses({ teardown: 'kill' });

interface Worker {
  process: ServerProcess;
  /** Its row in worker_heartbeats. */
  id: string;
}

async function heartbeatIds(): Promise<Set<string>> {
  const rows = await fx.svc.rt.db.execute<{ id: string }>(sql`select id from worker_heartbeats`);
  return new Set(rows.map((r) => r.id));
}

/** A worker process and its heartbeat id (the row that appears once it runs). */
async function worker(env: Record<string, string> = {}): Promise<Worker> {
  const before = await heartbeatIds();
  const spawned = await fx.track(spawnWorker(fx.svc.databaseUrl, { ...ENV, ...env }));
  const id = await waitFor('the new worker on record', async () => [...(await heartbeatIds())].find((id) => !before.has(id)), {
    context: () => spawned.output.join(''),
  });
  return { process: spawned, id };
}

/**
 * ORDERS orders fanned out by the first worker alone, so it holds every attempt, then a second worker
 * beside it. The receiver answers nothing until `letGo()` (so the first worker still holds them all
 * then), and each request RECEIVER_DELAY_MS after that or after it came.
 */
async function firstWorkerHoldingAttempts(path: string) {
  await fx.killLeftovers();
  const partner = await createTestPartner(fx.svc);
  let letGo = () => {};
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const subscription = await fx.subscribe(partner, path, () => ({ status: 200, delayMs: RECEIVER_DELAY_MS, after: gate }));
  const first = await worker({ METRICS_PORT: '0' });
  await Promise.all(Array.from({ length: ORDERS }, () => newOrder(partner)));
  await waitFor('every delivery fanned out', async () => (await deliveries(subscription)).length === ORDERS, {
    context: () => first.process.output.join(''),
  });
  const second = await worker();
  return { subscription, first, letGo, output: () => [first, second].map((w) => w.process.output.join('')).join('\n') };
}

async function deliveries(subscription: string) {
  return fx.svc.rt.db.execute<{ id: string; status: string; attempts: number; claimed: boolean; recorded: number; succeeded: number }>(sql`
    select d.id, d.status, d.attempts, d.claimed_until is not null as claimed,
      (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as recorded,
      (select count(*)::int from webhook_attempts a where a.delivery_id = d.id and a.response_status between 200 and 299) as succeeded
    from webhook_deliveries d where d.subscription_id = ${subscription}`);
}

/**
 * Freezes `w` just after it beat (so its heartbeat is as young as it gets), for `ms` and then until `before`
 * holds, and lets the receiver answer as it freezes. Answers when it was frozen and how many attempts it held then.
 */
async function freeze(
  w: Worker,
  subscription: string,
  ms: number,
  letGo: () => void,
  before?: { what: string; holds: () => Promise<boolean>; context?: () => string },
): Promise<{ at: number; held: number }> {
  await waitFor(
    'a fresh heartbeat of the worker to freeze',
    async () => {
      const [row] = await fx.svc.rt.db.execute<{ age: number }>(
        sql`select extract(epoch from now() - beat_at)::float8 as age from worker_heartbeats where id = ${w.id}`,
      );
      return row !== undefined && row.age < 0.3;
    },
    { timeoutMs: 15_000, intervalMs: 20 },
  );
  const held = (await deliveries(subscription)).filter((d) => d.status === 'pending' && d.claimed).length;
  w.process.signal('SIGSTOP');
  letGo();
  // The moment that divides "on the wire before the freeze" from "sent after it" is taken once what the
  // worker wrote before it stopped has reached the receiver: the receiver stamps a request when this
  // process reads it, and a request written just before the SIGSTOP was read after an immediate stamp
  // (CI, 2026-11-27: one duplicate "first sent after the freeze" that the worker had sent before it).
  // Nothing else sends these attempts for HEARTBEAT_STALE_SECONDS, so a copy stamped later is a re-send.
  await settle(FREEZE_SETTLE_MS, 'for what the worker wrote before it stopped to reach the receiver');
  const at = Date.now();
  await settle(ms - FREEZE_SETTLE_MS, 'the worker stays frozen this long: longer than its claims');
  if (before) await waitFor(before.what, before.holds, { timeoutMs: 60_000, intervalMs: 100, context: before.context });
  w.process.signal('SIGCONT');
  return { at, held };
}

const eventIdOf = (r: ReceivedRequest) => r.headers['x-service-event-id']!;

/** Once every delivery is recorded: the events that reached the receiver more than once, and the deliveries recorded wrong. */
async function settled(subscription: string, path: string, output: () => string) {
  const rows = await waitFor('every delivery recorded', () => deliveries(subscription), {
    until: (rows) => rows.length === ORDERS && rows.every((r) => r.status === 'succeeded'),
    timeoutMs: 90_000,
    intervalMs: 250,
    context: output,
  });
  await settle(RECEIVER_DELAY_MS + CLAIM_SECONDS * 1000, 'to show that no copy is still on its way once all is recorded');
  const byEvent = new Map<string, ReceivedRequest[]>();
  for (const r of fx.receiver.received.filter((r) => r.path === path)) byEvent.set(eventIdOf(r), [...(byEvent.get(eventIdOf(r)) ?? []), r]);
  expect(byEvent.size).toBe(ORDERS);
  return {
    duplicated: [...byEvent.values()].filter((copies) => copies.length > 1),
    // Exactly once on record means one successful attempt per delivery, and as many attempts as it counts.
    misrecorded: rows.filter((r) => r.succeeded !== 1 || r.recorded !== r.attempts),
  };
}

const logLines = (p: ServerProcess) =>
  p.output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; late_ms?: number; lost?: number });

describe('a worker frozen for longer than its claims', () => {
  it('twice the claim (6 s): nothing is sent twice, and the worker says its renewals were late', async () => {
    const path = '/stall/short';
    const { subscription, first, letGo, output } = await firstWorkerHoldingAttempts(path);
    const frozen = await freeze(first, subscription, 2 * CLAIM_SECONDS * 1000, letGo);
    const { duplicated, misrecorded } = await settled(subscription, path, output);
    const late = logLines(first.process).filter((l) => l.msg.startsWith('renewals late'));
    const samples = parsePrometheus(
      (
        await scrape(first.process.metricsUrl!).catch((err: unknown) => {
          throw new Error(`the woken worker's metrics did not answer (${String(err)}):\n${output()}`);
        })
      ).text,
    );
    console.log(
      `[stall] frozen ${2 * CLAIM_SECONDS} s (claims ${CLAIM_SECONDS} s) holding ${frozen.held} of ${ORDERS} attempts: ` +
        `${duplicated.length} events sent twice, ${misrecorded.length} recorded twice; ` +
        `renewals late by ${late.map((l) => l.late_ms).join(', ')} ms`,
    );
    expect(frozen.held).toBe(ORDERS);
    expect(misrecorded).toEqual([]);
    expect(duplicated.map((copies) => eventIdOf(copies[0]!))).toEqual([]);
    expect(late.length).toBeGreaterThanOrEqual(1);
    expect(late[0]!.late_ms).toBeGreaterThan(CLAIM_SECONDS * 1000);
    expect(sumSamples(samples, 'pdp_webhook_claim_renewals_late_total')).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it(`past the heartbeat's ${HEARTBEAT_STALE_SECONDS} s: the other worker takes the attempts over, the woken one sends none of them`, async () => {
    const path = '/stall/long';
    const { subscription, first, letGo, output } = await firstWorkerHoldingAttempts(path);
    // Woken before the other worker has claimed what the sweeper returned, the frozen one could fetch those
    // attempts' deliver jobs and claim them again itself (no duplicate, but not what this test is about; it
    // then never finds a claim lost: 1 run in 5 on a loaded machine). So it wakes once none is still its own.
    let waiting: string[] = [];
    const frozen = await freeze(first, subscription, (HEARTBEAT_STALE_SECONDS + 7) * 1000, letGo, {
      what: 'the other worker to hold every attempt the frozen one held',
      holds: async () => {
        const rows = await fx.svc.rt.db.execute<{ id: string; claimed_by: string | null; claimed_until: string | null }>(sql`
          select id, claimed_by, claimed_until from webhook_deliveries
          where subscription_id = ${subscription} and status = 'pending' and (claimed_by is null or claimed_by = ${first.id})`);
        waiting = rows.map((r) => `${r.id} claimed by ${r.claimed_by ?? 'nobody'} until ${r.claimed_until ?? '-'}`);
        return rows.length === 0;
      },
      // It timed out in about half the runs on 2026-11-27: the frozen worker held the sweep lock (see
      // test/webhooks/sweep-lock.test.ts). Should it time out again, say which deliveries it waited for.
      context: () => `frozen worker ${first.id}; still waiting for: ${waiting.join('; ')}\n${output()}`,
    });
    const { duplicated, misrecorded } = await settled(subscription, path, output);
    // The woken worker finds out at its first renewal; on a loaded machine that can come after the other
    // worker has recorded everything (CI once read its log too early and found no line yet).
    const lost = await waitFor(
      'the woken worker to say which claims it lost',
      () => logLines(first.process).filter((l) => l.msg.startsWith('claims lost')),
      {
        until: (lines) => lines.length > 0,
        timeoutMs: 30_000,
        context: output,
      },
    );
    console.log(
      `[stall] frozen ${HEARTBEAT_STALE_SECONDS + 7} s holding ${frozen.held} of ${ORDERS} attempts: ${duplicated.length} events sent twice ` +
        `(${duplicated.filter((copies) => copies[0]!.at < frozen.at).length} of them on the wire before the freeze), ` +
        `${misrecorded.length} recorded twice; the woken worker dropped ${lost.map((l) => l.lost).join(' + ')} attempts it no longer held`,
    );
    expect(frozen.held).toBe(ORDERS);
    expect(misrecorded).toEqual([]);
    // Only what was on the wire when it froze (its share in flight, and as many answered and not yet
    // recorded) arrives twice: every duplicated event's first copy came before the freeze.
    expect(duplicated.length).toBeLessThanOrEqual(IN_FLIGHT_BOUND);
    expect(duplicated.filter((copies) => copies[0]!.at >= frozen.at).map((copies) => eventIdOf(copies[0]!))).toEqual([]);
    expect(lost.reduce((n, l) => n + (l.lost ?? 0), 0)).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

describe('a worker killed (SIGKILL) while it holds attempts', () => {
  it(`they go back to the queue within max(claim, ${HEARTBEAT_STALE_SECONDS} s) + a sweep, and the other worker sends them`, async () => {
    const path = '/stall/killed';
    const { subscription, first, letGo, output } = await firstWorkerHoldingAttempts(path);
    const heldBy = async (holder: string) =>
      (
        await fx.svc.rt.db.execute<{ n: number }>(
          sql`select count(*)::int as n from webhook_deliveries where subscription_id = ${subscription} and claimed_by = ${holder}`,
        )
      )[0]!.n;
    const held = await heldBy(first.id);
    await first.process.kill();
    const killedAt = Date.now();
    letGo();
    await waitFor("the killed worker's claims returned", async () => (await heldBy(first.id)) < held, {
      timeoutMs: 60_000,
      intervalMs: 50,
      context: output,
    });
    const returned = (Date.now() - killedAt) / 1000;
    const again = await waitFor(
      'the first attempt the killed worker held, from the other worker',
      () => fx.receiver.received.find((r) => r.path === path && r.at > killedAt),
      { timeoutMs: 30_000, intervalMs: 50, context: output },
    );
    const sent = (again.at - killedAt) / 1000;
    const { duplicated, misrecorded } = await settled(subscription, path, output);
    const bound = Math.max(CLAIM_SECONDS, HEARTBEAT_STALE_SECONDS) + SWEEP_MS / 1000;
    console.log(
      `[stall] killed holding ${held} of ${ORDERS} attempts: returned ${returned.toFixed(1)} s after the kill (bound ${bound} s), ` +
        `the first on the wire again at ${sent.toFixed(1)} s; ${duplicated.length} events sent twice, ${misrecorded.length} recorded twice`,
    );
    expect(held).toBe(ORDERS);
    expect(misrecorded).toEqual([]);
    // The bound counts from the last heartbeat, which came before the kill; a second more for the
    // sweeper's timer and statement and this poll on a busy machine (measured: 14.0-15.0 s).
    expect(returned).toBeLessThanOrEqual(bound + 1);
    expect(duplicated.length).toBeLessThanOrEqual(IN_FLIGHT_BOUND);
  }, 180_000);
});
