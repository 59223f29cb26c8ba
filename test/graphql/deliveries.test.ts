import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { clientFor, expectStatus, newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The operator API's delivery log, events, orders, replays and overview, over real deliveries to an
// HTTPS receiver: filters return exactly the right rows, attempts show who asked and where they went,
// support may redeliver and replay but not advance an order, and a page of deliveries with every
// attempt costs a constant number of statements.

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;
let a: TestPartner;
let b: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let okSub: string;
let failSub: string;
let bSub: string;
let secrets: string[];
let orders: string[];
let since: string;

const LONG_BODY = 'x'.repeat(5000);

const ATTEMPT_FIELDS = `attempts { number trigger requestedBy startedAt durationMs requestHeaders { name value } responseStatus
  responseHeaders { name value } responseBodyExcerpt errorKind errorMessage resolvedAddress }`;
const DELIVERY_FIELDS = `id eventId eventType subscriptionId partnerId partnerName environment orderId outcome attemptCount url ${ATTEMPT_FIELDS}`;
const DELIVERIES = `query($filter: DeliveryFilter, $first: Int! = 25, $after: String) {
  deliveries(filter: $filter, first: $first, after: $after) { nodes { ${DELIVERY_FIELDS} } pageInfo { hasNextPage endCursor } } }`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as the API answered them
type Row = any;

async function deliveries(filter: Record<string, unknown>, who: TestOperator = support): Promise<Row[]> {
  return (await gqlData(who, DELIVERIES, { filter, first: 50 })).deliveries.nodes;
}

async function subscribe(who: TestPartner, path: string): Promise<{ id: string; secret: string }> {
  const { id, secret } = await newSubscription(who, { url: `https://localhost:${receiver.port}${path}`, event_filters: ['order.created'] });
  return { id, secret };
}

beforeAll(async () => {
  // One retry a second after the first attempt, then the delivery fails for good.
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1' });
  receiver = await startReceiver((req) => (req.path === '/fail' ? { status: 500, body: LONG_BODY } : { status: 200, body: 'ok' }));
  [admin, support] = await Promise.all([createTestOperator(svc, 'admin'), createTestOperator(svc, 'support')]);
  a = await createTestPartner(svc);
  b = await createTestPartner(svc);
  const subs = [await subscribe(a, '/ok'), await subscribe(a, '/fail'), await subscribe(b, '/ok-b')];
  [okSub, failSub, bSub] = subs.map((s) => s.id) as [string, string, string];
  secrets = subs.map((s) => s.secret);
  since = new Date(Date.now() - 1000).toISOString();
  orders = [(await newOrder(a)).id, (await newOrder(a)).id];
  await newOrder(b);
  await waitFor(
    'the deliveries settled: 3 succeeded, 2 failed after their retry',
    async () => {
      const rows = await deliveries({ since });
      const settled = rows.filter((d: Row) => d.outcome === 'succeeded' || d.outcome === 'failed');
      return settled.length === 5;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}, 60_000);
afterAll(() => receiver.close());

const ids = (rows: Row[]) => rows.map((r) => r.id);

describe('deliveries', () => {
  it('filters return exactly the right rows', async () => {
    const all = await deliveries({ since });
    expect(all).toHaveLength(5);
    expect(ids(all)).toEqual([...ids(all)].sort().reverse());

    const ofA = await deliveries({ partnerId: a.partnerId });
    expect(ofA).toHaveLength(4);
    expect(new Set(ofA.map((d: Row) => d.partnerId))).toEqual(new Set([a.partnerId]));

    const failed = await deliveries({ outcome: 'failed' });
    expect(failed.map((d: Row) => d.subscriptionId)).toEqual([failSub, failSub]);
    expect(await deliveries({ statusClass: 'S5XX' })).toEqual(failed);
    expect(ids(await deliveries({ statusClass: 'S2XX', partnerId: a.partnerId })).sort()).toEqual(
      ids(ofA.filter((d: Row) => d.subscriptionId === okSub)).sort(),
    );
    expect(await deliveries({ statusClass: 'S4XX' })).toEqual([]);
    expect(await deliveries({ statusClass: 'NONE', since })).toEqual([]);

    const ofOrder = await deliveries({ orderId: orders[0] });
    expect(ofOrder.map((d: Row) => d.subscriptionId).sort()).toEqual([okSub, failSub].sort());
    expect(new Set(ofOrder.map((d: Row) => d.orderId))).toEqual(new Set([orders[0]]));
    const eventId = ofOrder[0].eventId;
    expect(ids(await deliveries({ eventId }))).toEqual(ids(ofOrder));
    expect(ids(await deliveries({ eventId, subscriptionId: okSub }))).toEqual(ids(ofOrder.filter((d: Row) => d.subscriptionId === okSub)));

    expect(await deliveries({ subscriptionId: bSub, eventType: 'order.created' })).toHaveLength(1);
    expect(await deliveries({ subscriptionId: bSub, eventType: 'order.cancelled' })).toEqual([]);
    expect(await deliveries({ partnerId: a.partnerId, environment: 'production' })).toEqual([]);
    expect(await deliveries({ partnerId: a.partnerId, environment: 'sandbox', outcome: 'succeeded' })).toHaveLength(2);
    expect(await deliveries({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await deliveries({ partnerId: a.partnerId, until: since })).toEqual([]);
  });

  it('shows every attempt: headers as sent with signatures masked, status, body excerpt, error, address; never a secret', async () => {
    const reply = await gql(support, DELIVERIES, { filter: { outcome: 'failed' } });
    const [failed] = reply.data.deliveries.nodes;
    expect(failed.attemptCount).toBe(2);
    expect(failed.attempts.map((x: Row) => [x.number, x.trigger, x.requestedBy])).toEqual([
      [1, 'scheduled', null],
      [2, 'scheduled', null],
    ]);
    const [first] = failed.attempts;
    expect(first).toMatchObject({ responseStatus: 500, errorKind: 'http_status', errorMessage: 'HTTP 500' });
    expect(first.responseBodyExcerpt).toBe(LONG_BODY.slice(0, 2048));
    expect(first.resolvedAddress).toMatch(/^(::1|127\.0\.0\.1|::ffff:127\.0\.0\.1)$/);
    const headers = Object.fromEntries(first.requestHeaders.map((h: Row) => [h.name, h.value]));
    const t = Math.floor(Date.parse(first.startedAt) / 1000);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'order.created',
      'x-service-event-id': failed.eventId,
      'webhook-id': failed.eventId,
      'webhook-timestamp': String(t),
      'x-service-signature': `t=${t},v1=********`,
      'webhook-signature': 'v1,********',
    });
    // What the receiver got carries the same headers, real signatures in place of the masks.
    const got = receiver.received.find((r) => r.path === '/fail' && r.headers['x-service-event-id'] === failed.eventId)!;
    for (const name of ['content-type', 'user-agent', 'x-service-event', 'x-service-event-id', 'webhook-id']) {
      expect(headers[name], name).toBe(got.headers[name]);
    }
    const text = JSON.stringify(reply.data);
    expect(text).not.toContain('whsec_');
    for (const secret of secrets) expect(text).not.toContain(secret.slice(6, 20));
    expect(text).not.toContain(got.headers['x-service-signature']!.split('v1=')[1]);
  });

  it('pages with first and after, newest first, without overlap', async () => {
    const page = (after?: string) =>
      gqlData(support, DELIVERIES, { filter: { partnerId: a.partnerId }, first: 3, after }).then((d) => d.deliveries);
    const one = await page();
    expect(one.nodes).toHaveLength(3);
    expect(one.pageInfo.hasNextPage).toBe(true);
    const two = await page(one.pageInfo.endCursor);
    expect(two.nodes).toHaveLength(1);
    expect(two.pageInfo.hasNextPage).toBe(false);
    expect([...ids(one.nodes), ...ids(two.nodes)]).toEqual(ids(await deliveries({ partnerId: a.partnerId })));
    const bad = await gql(support, DELIVERIES, { first: 3, after: 'not a cursor!' });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'after' });
    const tooMany = await gql(support, `{ deliveries(first: 101) { nodes { id } } }`);
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'first' });
  });
});

describe('events and orders', () => {
  it('events filter by order, partner, type and time; an event shows its envelope and deliveries', async () => {
    const EVENTS = `query($filter: EventFilter) { events(filter: $filter, first: 50) { nodes { id type partnerId environment objectId envelope } } }`;
    const ofOrder = (await gqlData(support, EVENTS, { filter: { orderId: orders[0] } })).events.nodes;
    expect(ofOrder).toHaveLength(1);
    expect(ofOrder[0]).toMatchObject({ type: 'order.created', partnerId: a.partnerId, environment: 'sandbox', objectId: orders[0] });
    expect(JSON.parse(ofOrder[0].envelope)).toMatchObject({ id: ofOrder[0].id, object: 'event', type: 'order.created' });
    const ofA = (await gqlData(support, EVENTS, { filter: { partnerId: a.partnerId, type: 'order.created', since } })).events.nodes;
    expect(ofA.map((e: Row) => e.objectId)).toEqual([...orders].reverse());
    expect((await gqlData(support, EVENTS, { filter: { partnerId: a.partnerId, until: since } })).events.nodes).toEqual([]);
    expect((await gqlData(support, EVENTS, { filter: { id: ofOrder[0].id } })).events.nodes).toEqual(ofOrder);

    const one = await gqlData(
      support,
      `query($id: ID!) { event(id: $id) { id deliveries { subscriptionId outcome attempts { number } } } }`,
      {
        id: ofOrder[0].id,
      },
    );
    expect(one.event.deliveries.map((d: Row) => d.subscriptionId).sort()).toEqual([okSub, failSub].sort());
    expect((await gqlData(support, `{ event(id: "evt_missing") { id } }`)).event).toBeNull();
  });

  it('orders filter by partner, status and id; an order shows its events', async () => {
    const ORDERS = `query($filter: OrderFilter) { orders(filter: $filter, first: 50) { nodes { id partnerId environment status statusHistory { status } } } }`;
    const ofA = (await gqlData(support, ORDERS, { filter: { partnerId: a.partnerId } })).orders.nodes;
    expect(ids(ofA)).toEqual([...orders].reverse());
    expect((await gqlData(support, ORDERS, { filter: { partnerId: a.partnerId, status: 'delivered' } })).orders.nodes).toEqual([]);
    expect(ids((await gqlData(support, ORDERS, { filter: { id: orders[1] } })).orders.nodes)).toEqual([orders[1]]);
    const one = await gqlData(support, `query($id: ID!) { order(id: $id) { id status events { nodes { type } } } }`, { id: orders[0] });
    expect(one.order).toEqual({ id: orders[0], status: 'created', events: { nodes: [{ type: 'order.created' }] } });
  });

  it('advancing an order is admin only: support gets forbidden; admin moves it, its event follows, the audit names the admin', async () => {
    const ADVANCE = `mutation($id: ID!) { advanceOrder(orderId: $id, to: courier_assigned) { id status events { nodes { type } } } }`;
    const allowed = (await gqlData(support, `{ me { allowedMutations } }`)).me.allowedMutations;
    expect(allowed).toEqual(expect.arrayContaining(['redeliverEvent', 'startReplay', 'cancelReplay']));
    expect(allowed).not.toContain('advanceOrder');
    const refused = await gql(support, ADVANCE, { id: orders[1] });
    expect(refused.errors?.[0]?.extensions?.code).toBe('forbidden');
    const moved = (await gqlData(admin, ADVANCE, { id: orders[1] })).advanceOrder;
    expect(moved.status).toBe('courier_assigned');
    expect(moved.events.nodes.map((e: Row) => e.type)).toEqual(['order.courier_assigned', 'order.created']);
    const audit = await svc.rt.db.execute<{ actor: string }>(
      sql`select actor from audit_log where action = 'order.advance' and target_id = ${orders[1]!}`,
    );
    expect(audit.map((r) => r.actor)).toEqual([`operator:${admin.id}`]);
    const again = await gql(admin, ADVANCE, { id: orders[1] });
    expect(again.errors?.[0]?.extensions?.code).toBe('invalid_state_transition');
  });
});

describe('redeliver and replay', () => {
  it('support redelivers an event: the attempt is manual and names the operator; the audit too', async () => {
    const [delivery] = await deliveries({ orderId: orders[0], subscriptionId: okSub });
    const sent = await gqlData(support, `mutation($e: ID!, $w: ID) { redeliverEvent(eventId: $e, webhookId: $w) { eventId webhookIds } }`, {
      e: delivery.eventId,
      w: okSub,
    });
    expect(sent.redeliverEvent).toEqual({ eventId: delivery.eventId, webhookIds: [okSub] });
    const manual = await waitFor('the manual attempt', async () => {
      const [d] = await deliveries({ eventId: delivery.eventId, subscriptionId: okSub });
      return d.attempts.find((x: Row) => x.trigger === 'manual');
    });
    expect(manual).toMatchObject({ number: 2, requestedBy: `operator:${support.email}`, responseStatus: 200, errorKind: null });
    expect(manual.resolvedAddress).toBeTruthy();
    const audit = await svc.rt.db.execute<{ actor: string }>(
      sql`select actor from audit_log where action = 'event.redeliver' and target_id = ${delivery.eventId}`,
    );
    expect(audit.map((r) => r.actor)).toEqual([`operator:${support.id}`]);

    // The order timeline asks for a delivery's latest attempts only (redeliveries add attempts without end).
    const LATEST = `query($id: ID!, $n: Int) { delivery(id: $id) { attemptCount attempts(latest: $n) { number trigger } } }`;
    const latest = (n: number | null) => gql(support, LATEST, { id: delivery.id, n });
    expect((await latest(1)).data.delivery).toEqual({ attemptCount: 2, attempts: [{ number: 2, trigger: 'manual' }] });
    expect((await latest(5)).data.delivery.attempts.map((a: Row) => a.number)).toEqual([1, 2]);
    expect((await latest(null)).data.delivery.attempts.map((a: Row) => a.number)).toEqual([1, 2]);
    for (const n of [0, 101])
      expect((await latest(n)).errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'latest' });

    const missing = await gql(support, `mutation { redeliverEvent(eventId: "evt_missing") { eventId } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('resource_missing');
  });

  it('support replays: a dry run counts and stores nothing; a replay shows its progress and who asked; its attempts name them', async () => {
    const START = `mutation($w: ID!, $since: DateTimeISO!, $dry: Boolean) {
      startReplay(webhookId: $w, since: $since, dryRun: $dry) { dryRun matched firstEventIds
        replay { id partnerId environment subscriptionId status phase settled matched pending requestedBy } } }`;
    const dry = (await gqlData(support, START, { w: okSub, since, dry: true })).startReplay;
    expect(dry).toMatchObject({ dryRun: true, matched: 2, replay: null });
    expect(dry.firstEventIds).toHaveLength(2);
    const REPLAYS = `query($f: ReplayFilter) { replays(filter: $f) { nodes { id status } } }`;
    expect((await gqlData(support, REPLAYS, { f: { subscriptionId: okSub } })).replays.nodes).toEqual([]);

    const started = (await gqlData(support, START, { w: okSub, since })).startReplay;
    expect(started.replay).toMatchObject({
      partnerId: a.partnerId,
      environment: 'sandbox',
      subscriptionId: okSub,
      status: 'queued',
      phase: 'sending',
      settled: false,
      matched: 2,
      pending: 0,
      requestedBy: `operator:${support.email}`,
    });
    const done = await waitFor(
      'the replay delivered',
      async () => {
        const r = (
          await gqlData(
            support,
            `query($id: ID!) { replay(id: $id) { status phase settled matched enqueued delivered failed skipped pending retrying nextRetryAt requestedBy } }`,
            { id: started.replay.id },
          )
        ).replay;
        return r.settled ? r : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(done).toEqual({
      status: 'completed',
      phase: 'settled',
      settled: true,
      matched: 2,
      enqueued: 2,
      delivered: 2,
      failed: 0,
      skipped: 0,
      pending: 0,
      retrying: 0,
      nextRetryAt: null,
      requestedBy: `operator:${support.email}`,
    });
    expect(ids((await gqlData(support, REPLAYS, { f: { partnerId: a.partnerId, status: 'completed' } })).replays.nodes)).toEqual([
      started.replay.id,
    ]);
    const replayed = (await deliveries({ subscriptionId: okSub })).flatMap((d: Row) =>
      d.attempts.filter((x: Row) => x.trigger === 'replay'),
    );
    expect(replayed.map((x: Row) => x.requestedBy)).toEqual([`operator:${support.email}`, `operator:${support.email}`]);

    const cancel = await gql(support, `mutation($id: ID!) { cancelReplay(replayId: $id) { id status phase } }`, { id: started.replay.id });
    expect(cancel.errors?.[0]?.extensions?.code).toBe('replay_not_running');
    const unknown = await gql(support, START, { w: 'wh_missing', since });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('resource_missing');
  });
});

describe('overview', () => {
  it('counts attempts per minute, the success rate, the backlog, and the failing and disabled subscriptions', async () => {
    expectStatus(200, await clientFor(b).PATCH('/partner/webhooks/{id}', { params: { path: { id: bSub } }, body: { status: 'disabled' } }));
    const OVERVIEW = `query($w: Int!) { overview(windowMinutes: $w) { windowMinutes attempts successRate perMinute { minute succeeded failed }
      pendingDeliveries dueDeliveries oldestWaitingSeconds
      failingSubscriptions { id partnerId partnerName url failingSince consecutiveFailures } disabledSubscriptions { id partnerName disabledReason } } }`;
    const o = (await gqlData(support, OVERVIEW, { w: 60 })).overview;
    const succeeded = o.perMinute.reduce((n: number, m: Row) => n + m.succeeded, 0);
    const failed = o.perMinute.reduce((n: number, m: Row) => n + m.failed, 0);
    const [counted] = await svc.rt.db.execute<{ ok: number; bad: number }>(
      sql`select count(*) filter (where error_kind is null)::int as ok, count(*) filter (where error_kind is not null)::int as bad from webhook_attempts`,
    );
    expect({ succeeded, failed }).toEqual({ succeeded: counted!.ok, failed: counted!.bad });
    expect(failed).toBe(4);
    expect(o.attempts).toBe(succeeded + failed);
    expect(o.successRate).toBeCloseTo(succeeded / (succeeded + failed), 5);
    expect(o).toMatchObject({ windowMinutes: 60, pendingDeliveries: 0, dueDeliveries: 0, oldestWaitingSeconds: null });
    expect(o.failingSubscriptions).toEqual([
      expect.objectContaining({
        id: failSub,
        partnerId: a.partnerId,
        partnerName: 'Test Partner',
        url: `https://localhost:${receiver.port}/fail`,
      }),
    ]);
    // Every failure recorded in the streak, whichever of the two deliveries' attempts started first.
    expect(o.failingSubscriptions[0].consecutiveFailures).toBe(failed);
    expect(o.disabledSubscriptions).toEqual([{ id: bSub, partnerName: 'Test Partner', disabledReason: 'disabled_by_partner' }]);

    // A delivery waiting for a worker shows in the backlog with its age.
    await svc.rt.db.execute(sql`update webhook_deliveries set status = 'pending', next_attempt_at = now() - interval '90 seconds'
      where id = (select id from webhook_deliveries where subscription_id = ${bSub} limit 1)`);
    const waiting = (await gqlData(support, OVERVIEW, { w: 60 })).overview;
    expect(waiting).toMatchObject({ pendingDeliveries: 1, dueDeliveries: 1 });
    expect(waiting.oldestWaitingSeconds).toBeGreaterThanOrEqual(89);
    await svc.rt.db.execute(
      sql`update webhook_deliveries set status = 'succeeded', next_attempt_at = null where subscription_id = ${bSub}`,
    );

    const refused = await gql(support, `{ overview(windowMinutes: 0) { attempts } }`);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'windowMinutes' });
  });
});

describe('cost', () => {
  it('a page of 50 deliveries with every attempt costs a constant number of statements', async () => {
    // A web-only process over the same database, so the workers' upkeep does not count.
    const statements: string[] = [];
    let counting = false;
    const web = await startTestService(
      { WORKERS: 'off' },
      { databaseUrl: svc.databaseUrl, onQuery: (query) => counting && statements.push(query) },
    );
    const viewer = await createTestOperator(web, 'support');
    const c = await createTestPartner(svc);
    const sub = (await subscribe(c, '/quiet')).id;
    // 50 events with a delivery each and two attempts per delivery, written as the engine writes them.
    await svc.rt.db.execute(sql`
      with e as (
        insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
        select '01N0' || lpad(g::text, 22, '0'), ${c.partnerId}::text, 'sandbox', 'order.created', 'order_' || g,
          jsonb_build_object('id', '01N0' || lpad(g::text, 22, '0'), 'object', 'event', 'type', 'order.created'), now()
        from generate_series(1, 50) g returning id
      ), d as (
        insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, created_at, updated_at)
        select '01N1' || substr(e.id, 5), e.id, ${sub}::text, 'order.created', 'succeeded', 2, now(), now() from e returning id
      )
      insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
      select '01N2' || substr(d.id, 5) || n, d.id, n, 'scheduled', now(), 5, case when n = 1 then 500 else 200 end,
        case when n = 1 then 'http_status' end
      from d, generate_series(1, 2) n`);

    const count = async (first: number) => {
      statements.length = 0;
      counting = true;
      const data = await gqlData(viewer, DELIVERIES, { filter: { subscriptionId: sub }, first });
      counting = false;
      return { rows: data.deliveries.nodes as Row[], statements: [...statements] };
    };
    // The operator API's pool opens its first connection here, and postgres.js reads Postgres's array types on it once.
    await count(5);
    const small = await count(5);
    const page = await count(50);
    expect(page.rows).toHaveLength(50);
    expect(page.rows.every((d) => d.attempts.length === 2 && d.partnerName === 'Test Partner')).toBe(true);
    expect(page.statements.length, page.statements.join('\n---\n')).toBeLessThanOrEqual(5);
    expect(page.statements.length).toBe(small.statements.length);
  });
});

// Last, so its orders do not change the counts above.
describe('one delivery, and an order by its external id', () => {
  it('delivery(id) answers one delivery with its attempts (null for an unknown id); externalId finds the deliveries of that order', async () => {
    const externalId = `po-${Date.now()}`;
    const ofA = await newOrder(a, { external_id: externalId });
    const ofB = await newOrder(b, { external_id: externalId }); // the same reference at another partner
    const rows = await waitFor(
      'the three deliveries of both orders exist',
      async () => {
        const found = await deliveries({ externalId });
        return found.length === 3 && found;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(new Set(rows.map((d: Row) => d.orderId))).toEqual(new Set([ofA.id, ofB.id]));
    const ofPartnerA = await deliveries({ externalId, partnerId: a.partnerId, environment: 'sandbox' });
    expect(ofPartnerA.map((d: Row) => d.subscriptionId).sort()).toEqual([okSub, failSub].sort());
    expect(await deliveries({ externalId: 'no-such-reference' })).toEqual([]);

    const one = await gqlData(support, `query($id: ID!) { delivery(id: $id) { ${DELIVERY_FIELDS} } }`, { id: ofPartnerA[0].id });
    expect(one.delivery.id).toBe(ofPartnerA[0].id);
    expect(one.delivery.orderId).toBe(ofA.id);
    expect(Array.isArray(one.delivery.attempts)).toBe(true);
    const none = await gqlData(support, `query($id: ID!) { delivery(id: $id) { id } }`, { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(none.delivery).toBeNull();
  });
});
