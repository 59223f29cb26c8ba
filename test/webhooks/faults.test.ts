import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemResolver, type Resolver } from '@/server/delivery/url-policy';
import { captureLogs } from '../support/logs';
import { newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// One faulty delivery among others of the same event (so of the same fan-out batch): the others are
// recorded as usual, and the faulty one is retried or closed with a log line an operator can read.
// The faults are real: a sealed secret that no key opens, a resolver answer that makes the attempt
// throw, and a database that refuses to record one delivery's attempt twice.

let svc: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const logs = captureLogs('info');

beforeAll(async () => {
  // An answer no resolver gives: the attempt's own address check throws on it.
  const resolver: Resolver = async (host) => (host === 'broken.test' ? (undefined as unknown as string[]) : systemResolver(host));
  svc = await startTestService(
    {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      WEBHOOK_CLAIM_SECONDS: '3',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
    },
    { resolver, log: logs.log },
  );
  partner = await createTestPartner(svc);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Delivery = { id: string; subscription_id: string; status: string; attempts: number };
type Attempt = { delivery_id: string; attempt: number; error_kind: string | null; error_message: string | null };

/** Three subscriptions to order.created, all healthy when created. */
async function subscriptions(tag: string): Promise<string[]> {
  return Promise.all(
    [1, 2, 3].map(async (i) => {
      const created = await newSubscription(partner, {
        url: `https://localhost:${receiver.port}/${tag}/${i}`,
        event_filters: ['order.created'],
      });
      return created.id;
    }),
  );
}

async function deliveriesOf(orderId: string): Promise<Delivery[]> {
  return svc.rt.db.execute<Delivery>(sql`select d.id, d.subscription_id, d.status, d.attempts from webhook_deliveries d
    join events e on e.id = d.event_id where e.object_id = ${orderId} order by d.subscription_id`);
}

async function attemptsOf(deliveryId: string): Promise<Attempt[]> {
  return svc.rt.db.execute<Attempt>(
    sql`select delivery_id, attempt, error_kind, error_message from webhook_attempts where delivery_id = ${deliveryId} order by attempt`,
  );
}

const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

/** The healthy deliveries of the order: each succeeded at its first attempt, and its receiver has it. */
async function expectHealthy(orderId: string, subs: string[], tag: string, faulty: string): Promise<void> {
  const healthy = subs.filter((s) => s !== faulty);
  const rows = await waitFor('the healthy deliveries recorded', async () => {
    const all = await deliveriesOf(orderId);
    const done = all.filter((d) => healthy.includes(d.subscription_id) && d.status === 'succeeded');
    return done.length === healthy.length ? done : undefined;
  });
  for (const d of rows) {
    expect(d.attempts).toBe(1);
    expect((await attemptsOf(d.id)).map((a) => a.error_kind)).toEqual([null]);
  }
  for (const sub of healthy) expect(receivedAt(`/${tag}/${subs.indexOf(sub) + 1}`)).toHaveLength(1);
}

describe('one faulty delivery in a batch', () => {
  it('a secret no key opens: the others succeed; it is recorded as an internal error, logged and retried', async () => {
    const subs = await subscriptions('sealed');
    await svc.rt.db.execute(sql`update webhook_subscriptions set secret_sealed = 'v1.nokey.AAAA.AAAA.AAAA' where id = ${subs[1]!}`);
    const order = await newOrder(partner);
    await expectHealthy(order.id, subs, 'sealed', subs[1]!);

    const faulty = (await deliveriesOf(order.id)).find((d) => d.subscription_id === subs[1])!;
    const attempts = await waitFor('three recorded attempts of the faulty delivery', async () => {
      const rows = await attemptsOf(faulty.id);
      return rows.length >= 3 ? rows : undefined;
    });
    expect(attempts.every((a) => a.error_kind === 'internal' && /could not send/.test(a.error_message ?? ''))).toBe(true);
    expect(receivedAt('/sealed/2')).toHaveLength(0);
    const logged = logs.entries().filter((e) => e.msg === 'webhook attempt failed inside the service' && e.delivery_id === faulty.id);
    expect(logged.length).toBeGreaterThanOrEqual(1);
    // Never the secret or its sealed form in the log line.
    expect(JSON.stringify(logged)).not.toContain('v1.nokey');
  });

  it('an attempt that throws: the others succeed; it is recorded as an internal error and retried', async () => {
    const subs = await subscriptions('throws');
    await svc.rt.db.execute(
      sql`update webhook_subscriptions set url = ${`https://broken.test:${receiver.port}/throws/2`} where id = ${subs[1]!}`,
    );
    const order = await newOrder(partner);
    await expectHealthy(order.id, subs, 'throws', subs[1]!);
    const faulty = (await deliveriesOf(order.id)).find((d) => d.subscription_id === subs[1])!;
    const attempts = await waitFor('two recorded attempts of the faulty delivery', async () => {
      const rows = await attemptsOf(faulty.id);
      return rows.length >= 2 ? rows : undefined;
    });
    expect(attempts[0]).toMatchObject({ attempt: 1, error_kind: 'internal' });
    expect(attempts[1]).toMatchObject({ attempt: 2, error_kind: 'internal' });
  });

  it('the database refuses to record one attempt, twice: the others are recorded; it is logged, swept and sent again', async () => {
    const subs = await subscriptions('record');
    // Injected in the database itself: inserting this subscription's attempt rows fails twice. A
    // sequence counts the failures, since a failed statement rolls back anything else it wrote.
    await svc.rt.db.execute(sql`create sequence fault_count`);
    await svc.rt.db.execute(
      sql.raw(`create function fault_on_attempt() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from webhook_deliveries d where d.id = new.delivery_id and d.subscription_id = '${subs[1]!}')
             and nextval('fault_count') <= 2 then
            raise exception 'injected fault: attempt of % not recorded', new.delivery_id;
          end if;
          return new;
        end $$`),
    );
    await svc.rt.db.execute(
      sql`create trigger fault_on_attempt before insert on webhook_attempts for each row execute function fault_on_attempt()`,
    );
    try {
      const order = await newOrder(partner);
      await expectHealthy(order.id, subs, 'record', subs[1]!);
      const faulty = (await deliveriesOf(order.id)).find((d) => d.subscription_id === subs[1])!;
      const done = await waitFor(
        'the faulty delivery recorded after its claim lapsed and it was sent again',
        async () => (await deliveriesOf(order.id)).find((d) => d.id === faulty.id && d.status === 'succeeded'),
        { timeoutMs: 20_000, context: () => logs.lines.slice(-20).join('') },
      );
      expect(done).toBeTruthy();
      expect((await attemptsOf(faulty.id)).map((a) => a.error_kind)).toEqual([null]);
      // At least once: the receiver got it again after the sweep, with the same event id.
      const got = receivedAt('/record/2');
      expect(got.length).toBeGreaterThanOrEqual(2);
      expect(new Set(got.map((r) => JSON.parse(r.rawBody.toString()).id)).size).toBe(1);
      const logged = logs
        .entries()
        .filter((e) => e.msg === 'could not record a webhook attempt; its claim will lapse and the attempt is made again');
      expect(logged.map((e) => e.delivery_id)).toContain(faulty.id);
      expect(JSON.stringify(logged)).not.toMatch(/response_body|whsec_/);
    } finally {
      await svc.rt.db.execute(sql`drop trigger fault_on_attempt on webhook_attempts`);
    }
  });
});
