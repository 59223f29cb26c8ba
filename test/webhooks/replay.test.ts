import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { paths } from '@partner-delivery/client';
import { call, clientFor, expectStatus, newOrder, newSubscription, type CreateSubscription } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { cliContext } from '@/server/cli/operator-context';
import { approveGoLive, createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Replay and redelivery end to end over HTTPS: each mode, the dry run, validation, the 409s,
// isolation between partners and environments, cancel mid-way, and redeliver.

let svc: TestService;
let partner: TestPartner;
let other: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let slowMs = 0;
// The answer to /held waits for this: a test keeps replayed deliveries in flight until it lets them go.
let held: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  other = await createTestPartner(svc);
  receiver = await startReceiver((req) => {
    if (req.path === '/busy') return { status: 503, headers: { 'retry-after': '30' } };
    if (req.path === '/refusing') return { status: 503, headers: { 'retry-after': '3600' } };
    if (req.path === '/held') return { status: 200, after: held };
    return req.path.startsWith('/slow') && slowMs ? { status: 200, delayMs: slowMs } : { status: 200 };
  });
});
afterAll(() => receiver.close());
// A partner of its own for each test: a window of whole seconds would otherwise take in a previous test's events.
beforeEach(async () => {
  partner = await createTestPartner(svc);
});

const now = () => Math.floor(Date.now() / 1000);
const eventIdOf = (r: ReceivedRequest) => r.headers['x-service-event-id']!;
const at = (path: string) => receiver.received.filter((r) => r.path === path);

async function subscribe(who: TestPartner, path: string, extra: Partial<CreateSubscription> = {}): Promise<string> {
  return (await newSubscription(who, { url: `https://localhost:${receiver.port}${path}`, ...extra })).id;
}

async function orderCreatedEvents(who: TestPartner, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = await newOrder(who);
    const [row] = await svc.rt.db.execute<{ id: string }>(
      sql`select id from events where object_id = ${order.id} and type = 'order.created'`,
    );
    ids.push(row!.id);
  }
  return ids;
}

type ReplayBody = paths['/partner/webhooks/{id}/replay']['post']['requestBody']['content']['application/json'];

/** POST /partner/webhooks/{id}/replay as `who`: the answer as the client gives it (a dry run, a replay or an error). */
function replay(sub: string, body: ReplayBody, who = partner) {
  return clientFor(who).POST('/partner/webhooks/{id}/replay', { params: { path: { id: sub } }, body });
}

/** A replay started (202 expected), narrowed from the dry run's type it shares the answer's union with. */
async function started(sub: string, body: Omit<ReplayBody, 'dry_run'>) {
  const answer = expectStatus(202, await replay(sub, body));
  if (!('id' in answer)) throw new Error(`a dry run answered: ${JSON.stringify(answer)}`);
  return answer;
}

/** A dry run (200 expected). */
async function dryRun(sub: string, body: Omit<ReplayBody, 'dry_run'>) {
  const answer = expectStatus(200, await replay(sub, { ...body, dry_run: true }));
  if ('id' in answer) throw new Error(`a replay answered a dry run: ${JSON.stringify(answer)}`);
  return answer;
}

async function getReplay(sub: string, id: string) {
  return expectStatus(
    200,
    await clientFor(partner).GET('/partner/webhooks/{id}/replays/{replay_id}', { params: { path: { id: sub, replay_id: id } } }),
  );
}

const cancelReplay = (sub: string, id: string) =>
  clientFor(partner).POST('/partner/webhooks/{id}/replays/{replay_id}/cancel', { params: { path: { id: sub, replay_id: id } } });

async function deliveriesOf(sub: string) {
  return expectStatus(200, await clientFor(partner).GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: sub } } })).data;
}

/** Waits until `count` deliveries of these events have been recorded as succeeded (the receiver sees a request before its sender has the answer). */
async function recorded(events: string[], count: number): Promise<void> {
  await waitFor('the live deliveries recorded', async () => {
    const [row] = await svc.rt.db.execute<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries where event_id in ${events} and status = 'succeeded'`,
    );
    return row!.n === count;
  });
}

async function finished(sub: string, id: string) {
  return waitFor(
    `replay ${id} finished with its deliveries`,
    async () => {
      const res = await getReplay(sub, id);
      return res.settled ? res : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

describe('replay', () => {
  it('missing: sends exactly the events never sent to the subscription; the dry run counts them; a second missing finds none', async () => {
    const since = now() - 1;
    const before = await orderCreatedEvents(partner, 3); // before the subscription existed
    const sub = await subscribe(partner, '/missing', { event_filters: ['order.created'] });
    expect(await dryRun(sub, { since, only: 'missing' })).toMatchObject({
      object: 'replay_dry_run',
      events_matched: 3,
      first_event_ids: before,
    });
    const replays = await clientFor(partner).GET('/partner/webhooks/{id}/replays', { params: { path: { id: sub } } });
    expect(expectStatus(200, replays).data).toEqual([]);

    const first = await started(sub, { since, only: 'missing' });
    expect(first).toMatchObject({ object: 'replay', webhook_id: sub, status: 'queued', only: 'missing', events_matched: 3 });
    const done = await finished(sub, first.id);
    expect(done).toMatchObject({ status: 'completed', events_enqueued: 3, events_delivered: 3, events_failed: 0 });
    expect(at('/missing').map(eventIdOf).sort()).toEqual([...before].sort());
    // The original envelope and id; the attempts are recorded as replay.
    expect((await deliveriesOf(sub)).flatMap((d) => d.attempts.map((a) => a.trigger))).toEqual(['replay', 'replay', 'replay']);
    // Claimed by the page itself for its worker's engine: no deliver job was made for any of them.
    const [jobs] = await svc.rt.db.execute<{ n: number }>(sql`
      select count(*)::int as n from (select data from pgboss.job where name = 'webhooks.deliver'
        union all select data from pgboss.archive where name = 'webhooks.deliver') j
      where j.data->>'event_id' in ${before}`);
    expect(jobs!.n).toBe(0);

    expect((await dryRun(sub, { since, only: 'missing' })).events_matched).toBe(0);
  });

  it('all and failed: all re-sends every event in the window; failed only those whose delivery failed', async () => {
    const sub = await subscribe(partner, '/all', { event_filters: ['order.created'] });
    const since = now() - 1;
    const ids = await orderCreatedEvents(partner, 3);
    await waitFor('the live deliveries', () => at('/all').length === 3);
    await recorded(ids, 3);
    // One delivery failed for good (as after its last retry).
    await svc.rt.db.execute(sql`update webhook_deliveries set status = 'failed' where event_id = ${ids[1]!} and subscription_id = ${sub}`);

    const failed = await started(sub, { since, only: 'failed' });
    expect(failed.events_matched).toBe(1);
    await finished(sub, failed.id);
    await waitFor('the failed one again', () => at('/all').length === 4);
    expect(at('/all').map(eventIdOf).slice(0, 3).sort()).toEqual([...ids].sort());
    expect(at('/all').map(eventIdOf)[3]).toBe(ids[1]);

    const all = await started(sub, { since, until: now() });
    expect(all.events_matched).toBe(3);
    const done = await finished(sub, all.id);
    expect(done).toMatchObject({ events_enqueued: 3, events_delivered: 3 });
    expect(at('/all').map(eventIdOf).slice(4).sort()).toEqual([...ids].sort());
  });

  it("never replays another partner's or another environment's events", async () => {
    const since = now() - 1;
    await orderCreatedEvents(other, 2);
    await approveGoLive(cliContext(svc.rt), partner.partnerId);
    const production = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId });
    await orderCreatedEvents(production, 1);
    const mine = await orderCreatedEvents(partner, 1);
    const sub = await subscribe(partner, '/isolated', { event_filters: ['order.created'] });
    const one = await started(sub, { since, only: 'missing' });
    expect(one.events_matched).toBe(1);
    await finished(sub, one.id);
    expect(at('/isolated').map(eventIdOf)).toEqual(mine);
  });

  it.each([
    [{ since: now() + 3600 }, 'since'],
    [{ since: now() - 60, until: now() - 120 }, 'until'],
    [{ since: now() - 31 * 86_400 }, 'until'],
    [{ since: now() - 60, until: now() + 3600 }, 'until'],
    [{ since: now() - 60, event_types: ['order.teleported'] }, 'event_types.0'],
    [{ since: now() - 60, event_types: ['order.created', 'order.delivered'] }, 'event_types.1'],
    [{ since: 'yesterday' }, 'since'],
    [{ since: now() - 60, only: 'some' }, 'only'],
    [{}, 'since'],
  ])('refuses %j with 400 naming %s', async (body, param) => {
    const sub = await subscribe(partner, '/refused', { event_filters: ['order.created'] });
    // Raw: some of these bodies are outside the document's types.
    const res = await call('POST', `/partner/webhooks/${sub}/replay`, partner, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('one replay at a time (409 naming it), none to a disabled subscription; cancel stops one mid-way', async () => {
    slowMs = 300;
    const sub = await subscribe(partner, '/slow', { event_filters: ['order.created'] });
    const since = now() - 1;
    // 250 events of the partner's, written as the outbox writes them (an order each would take minutes), ids of their time.
    await svc.rt.db.execute(sql`
      insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      select e.id, ${partner.partnerId}::text, 'sandbox', 'order.created', 'order_' || g, jsonb_build_object('id', e.id, 'object', 'event', 'created', ${now()}::int, 'livemode', false, 'type', 'order.created', 'data', jsonb_build_object('object', jsonb_build_object('id', 'order_' || g, 'status', 'created'))), now()
      from generate_series(1, 250) g, lateral (select left(pdp_id_floor(now()), 10) || '01M9' || lpad(g::text, 12, '0') as id) e`);
    const first = await started(sub, { since, only: 'missing' });
    expect(first.events_matched).toBe(250);
    const second = await replay(sub, { since, only: 'missing' });
    expect(second.response.status).toBe(409);
    expect(second.error?.error).toMatchObject({ code: 'replay_in_progress', replay_id: first.id });

    await waitFor('the first page on its way', () => at('/slow').length >= 5, { timeoutMs: 15_000 });
    const cancelled = expectStatus(200, await cancelReplay(sub, first.id));
    expect(cancelled.status).toBe('cancelled');
    const enqueued = cancelled.events_enqueued;
    expect(enqueued).toBeLessThan(250);
    const done = await finished(sub, first.id);
    await settle(1500, 'nothing more is sent after the cancel');
    expect(at('/slow').length).toBe(done.events_enqueued);
    expect(done.events_enqueued).toBe(enqueued);
    expect((await cancelReplay(sub, first.id)).error?.error.code).toBe('replay_not_running');
    slowMs = 0;

    expectStatus(
      200,
      await clientFor(partner).PATCH('/partner/webhooks/{id}', { params: { path: { id: sub } }, body: { status: 'disabled' } }),
    );
    const disabled = await replay(sub, { since, only: 'missing' });
    expect(disabled.response.status).toBe(409);
    expect(disabled.error?.error.code).toBe('subscription_disabled');
  }, 60_000);

  it('backs off while the receiver refuses: no next page while it answers 503 with Retry-After', async () => {
    const sub = await subscribe(partner, '/busy', { event_filters: ['order.created'] });
    const since = now() - 1;
    await svc.rt.db.execute(sql`
      insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      select e.id, ${partner.partnerId}::text, 'sandbox', 'order.created', 'order_' || g, jsonb_build_object('id', e.id, 'object', 'event', 'created', ${now()}::int, 'livemode', false, 'type', 'order.created', 'data', jsonb_build_object('object', jsonb_build_object('id', 'order_' || g, 'status', 'created'))), now()
      from generate_series(1, 300) g, lateral (select left(pdp_id_floor(now()), 10) || '01M6' || lpad(g::text, 12, '0') as id) e`);
    const busy = await started(sub, { since, only: 'missing' });
    expect(busy.events_matched).toBe(300);
    await waitFor('the first page refused by the receiver', () => at('/busy').length >= 20, { timeoutMs: 15_000 });
    const get = () => getReplay(sub, busy.id);
    const first = await get();
    await settle(3000, 'a replay that did not back off would send its next pages meanwhile');
    const r = await get();
    expect(r.status).toBe('running');
    // Pages are sized by the worker's room for the replay (at most 200 while no 2xx has set the receiver's pace): none
    // after the first.
    expect(first.events_enqueued).toBeGreaterThan(0);
    expect(r.events_enqueued).toBe(first.events_enqueued);
    expect(r.events_enqueued).toBeLessThan(300);
    // Each refused delivery waits out Retry-After: none of the first page is attempted twice yet.
    expect(new Set(at('/busy').map(eventIdOf)).size).toBe(at('/busy').length);
    expectStatus(200, await cancelReplay(sub, busy.id));
  }, 30_000);

  it('settled: completed says every page is enqueued; settled waits until none of its deliveries is pending, retries included', async () => {
    const sub = await subscribe(partner, '/held', { event_filters: ['order.created'] });
    const since = now() - 1;
    const events = await orderCreatedEvents(partner, 2);
    await waitFor('the live deliveries', () => at('/held').length === 2);
    // A delivery still pending is not replayed (resendEvents): the replay's page ran before the live
    // answers were recorded and skipped them, 1 run in ~10 under load (CI, 2026-11-26).
    await recorded(events, 2);
    let open!: () => void;
    held = new Promise<void>((resolve) => (open = resolve));
    const heldReplay = await started(sub, { since });
    expect(heldReplay).toMatchObject({ status: 'queued', events_pending: 0, settled: false });
    const get = () => getReplay(sub, heldReplay.id);
    // 1 run in ~20 beside other files still timed out here after the fix above, not yet explained: on a timeout the
    // deliveries, their open deliver jobs and the replay are printed.
    let state = '';
    await waitFor(
      'both replayed events in flight',
      async () => {
        if (at('/held').length === 4) return true;
        const deliveries = await svc.rt.db.execute(sql`
          select d.id, d.status, d.attempts, d.claimed_by, d.claimed_until, d.next_attempt_at, d.replay_id,
            (select json_agg(json_build_object('state', j.state, 'start_after', j.start_after, 'data', j.data)) from pgboss.job j
             where j.name = 'webhooks.deliver' and j.data->>'delivery_id' = d.id) as jobs
          from webhook_deliveries d where d.subscription_id = ${sub}`);
        state = `received at /held: ${at('/held').length}; deliveries: ${JSON.stringify(deliveries)}; replay: ${JSON.stringify(await get())}`;
        return false;
      },
      { timeoutMs: 20_000, context: () => state },
    );
    const inFlight = await waitFor('the replay completed', async () => {
      const r = await get();
      return r.status === 'completed' ? r : undefined;
    });
    expect(inFlight).toMatchObject({ events_enqueued: 2, events_delivered: 0, events_pending: 2, settled: false });
    open();
    held = Promise.resolve();
    expect(await finished(sub, heldReplay.id)).toMatchObject({
      status: 'completed',
      events_delivered: 2,
      events_failed: 0,
      events_skipped: 0,
      events_pending: 0,
      settled: true,
    });

    // A receiver that refuses: each delivery waits for a retry an hour away; the replay is complete, not settled.
    const refusing = await subscribe(partner, '/refusing', { event_filters: ['order.created'] });
    const again = await started(refusing, { since, until: now() });
    await waitFor('both refused', () => at('/refusing').length === 2);
    const waiting = await waitFor('both waiting for their retry', async () => {
      const r = await getReplay(refusing, again.id);
      const [due] = await svc.rt.db.execute<{ n: number }>(
        sql`select count(*)::int as n from webhook_deliveries where replay_id = ${again.id} and next_attempt_at > now() + interval '30 minutes'`,
      );
      return r.status === 'completed' && due!.n === 2 ? r : undefined;
    });
    expect(waiting).toMatchObject({ events_delivered: 0, events_failed: 0, events_pending: 2, settled: false });
  }, 45_000);

  it("works on the /webhooks alias, and answers 404 for another partner's subscription", async () => {
    const sub = await subscribe(partner, '/alias', { event_filters: ['order.created'] });
    const res = await clientFor(partner).POST('/webhooks/{id}/replay', {
      params: { path: { id: sub } },
      body: { since: now() - 60, dry_run: true },
    });
    expectStatus(200, res);
    expect((await replay(sub, { since: now() - 60 }, other)).response.status).toBe(404);
    const unknown = await clientFor(partner).GET('/partner/webhooks/{id}/replays/{replay_id}', {
      params: { path: { id: sub, replay_id: '01M90000000000000000000000' } },
    });
    expect(unknown.response.status).toBe(404);
  });
});

const redeliver = (event: string, body: { webhook_id?: string }, who = partner) =>
  clientFor(who).POST('/partner/events/{id}/redeliver', { params: { path: { id: event } }, body });

describe('redeliver', () => {
  it('sends one event again to one subscription, or to every one that accepts it, recorded as manual', async () => {
    const a = await subscribe(partner, '/redeliver-a', { event_filters: ['order.created'] });
    const b = await subscribe(partner, '/redeliver-b', { event_filters: ['order.created'] });
    const [event] = await orderCreatedEvents(partner, 1);
    await waitFor('the live deliveries', () => at('/redeliver-a').length === 1 && at('/redeliver-b').length === 1);
    // Recorded, too: the receiver has a request before its sender has the answer, and a delivery still
    // pending is not sent twice (this raced on a loaded machine: webhook_ids [] in 3 runs of 5).
    await recorded([event!], 2);

    const one = expectStatus(202, await redeliver(event!, { webhook_id: a }));
    expect(one).toEqual({ object: 'redelivery', event_id: event, webhook_ids: [a] });
    await waitFor('the redelivery to a', () => at('/redeliver-a').length === 2);
    await recorded([event!], 2); // a redeliver to every subscription leaves one still pending to its attempt
    expect(at('/redeliver-a').map(eventIdOf)).toEqual([event, event]);
    expect(at('/redeliver-b')).toHaveLength(1);

    const every = expectStatus(202, await redeliver(event!, {}));
    expect(every.webhook_ids).toEqual(expect.arrayContaining([a, b]));
    await waitFor('the redelivery to both', () => at('/redeliver-a').length === 3 && at('/redeliver-b').length === 2);
    await recorded([event!], 2); // the log lists recorded attempts only
    expect((await deliveriesOf(b))[0]!.attempts.map((x) => x.trigger)).toEqual(['scheduled', 'manual']);

    expect((await redeliver(event!, {}, other)).response.status).toBe(404);
    expect((await redeliver(event!, { webhook_id: '01M90000000000000000000000' })).response.status).toBe(404);
  });
});
