import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { createTestPartner, startTestService, type TestService } from '../support/service';
import { cliContext } from '@/server/cli/operator-context';
import { withTransaction } from '@/server/context';
import { fanOutEvents } from '@/server/delivery/fan-out';
import { returnExpiredClaims, SWEEP_IDLE_LIMIT_SECONDS, takeSweepLock } from '@/server/delivery/leases';

// One sweeper at a time returns the claims of dead workers (the sweep lock). A sweeper whose process
// stops inside its transaction (SIGSTOP, a long GC pause) must not keep every other worker from
// returning them: the claims would wait as long as the stall lasted (test/webhooks/stall.test.ts timed
// out on this in about half its runs before the bound).

let svc: TestService;
let subscriptionId: string;

beforeAll(async () => {
  // No workers: nothing sweeps but this file's sweepers.
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const partner = await createTestPartner(svc);
  subscriptionId = (await newSubscription(partner, { url: 'https://localhost:9/hooks' })).id;
  await newOrder(partner);
  const events = await svc.rt.db.execute<{ id: string }>(sql`select id from events where partner_id = ${partner.partnerId}`);
  // Claimed by a worker that then died: no heartbeat, and a claim already lapsed.
  await fanOutEvents({ ctx: cliContext(svc.rt), input: { eventIds: events.map((e) => e.id), holder: 'worker-gone' } });
  await svc.rt.db.execute(
    sql`update webhook_deliveries set claimed_until = now() - interval '1 minute' where subscription_id = ${subscriptionId}`,
  );
});

describe('the sweep lock', () => {
  it(`a sweeper stopped inside its transaction loses the lock after ${SWEEP_IDLE_LIMIT_SECONDS} s idle, and another returns the dead worker's claims`, async () => {
    const ctx = cliContext(svc.rt);
    const stalledFor = SWEEP_IDLE_LIMIT_SECONDS * 4 * 1000;
    let lockTaken!: () => void;
    const locked = new Promise<void>((resolve) => (lockTaken = resolve));
    // The stalled sweeper: takes the lock, then sends nothing for four times the limit, as a frozen process would.
    const stalled = withTransaction(ctx, async (tx) => {
      expect(await takeSweepLock(tx)).toBe(true);
      lockTaken();
      await sleep(stalledFor);
      await tx.db.execute(sql`select 1`);
    }).then(
      () => 'committed',
      (err: unknown) => `ended: ${(err as Error).message}`,
    );
    await locked;
    const started = performance.now();
    const sweeper = { holder: 'worker-alive', holds: [] };
    expect(await returnExpiredClaims(ctx, sweeper)).toBe(0);

    const returned = await waitFor("another sweeper to return the dead worker's claim", () => returnExpiredClaims(ctx, sweeper), {
      until: (n) => n > 0,
      timeoutMs: stalledFor - 2000,
    });
    const tookMs = performance.now() - started;
    console.log(`[sweep-lock] the stalled sweeper's lock was free after ${Math.round(tookMs)} ms (limit ${SWEEP_IDLE_LIMIT_SECONDS} s)`);
    expect(returned).toBe(1);
    const [row] = await svc.rt.db.execute<{ claimed_by: string | null }>(
      sql`select claimed_by from webhook_deliveries where subscription_id = ${subscriptionId}`,
    );
    expect(row!.claimed_by).toBeNull();
    // Postgres ended the stalled session: its next statement fails, and what it had done rolled back.
    expect(await stalled).toMatch(/^ended: /);
  }, 60_000);
});
