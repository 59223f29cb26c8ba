import { sql } from 'drizzle-orm';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@/db/schema';
import { jobContext } from '@/jobs/definition';
import { cliContext } from '@/server/cli/operator-context';
import { retireHistory } from '@/server/history/retain';
import { eventResource } from '@/server/events/schemas';
import { orderResource } from '@/server/orders/schemas';
import { FIRST_VERSION, LATEST_VERSION } from '@/server/versions/registry';
import { webhookResource } from '@/server/webhooks/schemas';

// The first version's event: the latest's without `api_version` (its `data.object` is loose: the order whole).
const firstVersionEvent = eventResource.omit({ api_version: true });
import type { paths } from '@partner-delivery/client';
import { call, clientFor, expectStatus, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { approveGoLive, createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 4: the order events of the state table plus webhook.test, and the status the
// order (or, for webhook.test, the subscription) has in each; and the operational events of section 8
// (docs/guides/failure-notices.md). Written out independently of the catalog.
const CATALOG: Record<string, string> = {
  'order.created': 'created',
  'order.courier_assigned': 'courier_assigned',
  'order.courier_unassigned': 'created',
  'order.arrived_at_pickup': 'arrived_at_pickup',
  'order.picked_up': 'picked_up',
  'order.arrived_at_dropoff': 'arrived_at_dropoff',
  'order.delivered': 'delivered',
  'order.return_started': 'returning',
  'order.returned': 'returned',
  'order.cancelled': 'cancelled',
  'webhook.test': 'enabled',
  'webhook.failing': 'enabled',
  'webhook.disabled': 'disabled',
  'webhook.recovered': 'enabled',
};

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
});

type EventQuery = NonNullable<paths['/partner/events']['get']['parameters']['query']>;

/** One page of GET /partner/events (200 expected). */
async function page(who: TestPartner, query: EventQuery = {}) {
  return expectStatus(200, await clientFor(who).GET('/partner/events', { params: { query } }));
}

/** Every event `query` selects, on one page of 100 (the tests make fewer). */
async function list(who: TestPartner, query: EventQuery = {}): Promise<EventEnvelope[]> {
  const res = await page(who, { limit: 100, ...query });
  expect(res).toMatchObject({ object: 'list', has_more: false });
  // The partners here speak the first version or the latest: both envelopes have the fields the tests read.
  return res.data as EventEnvelope[];
}

const getEvent = (who: TestPartner, id: string) => clientFor(who).GET('/partner/events/{id}', { params: { path: { id } } });

const ids = (events: { id: string }[]) => events.map((e) => e.id);

/** An event row as emitEvent writes it, at a chosen time (ms precision, as emitEvent's default clock). */
async function insertEvent(
  who: { partnerId: string },
  at: Date,
  opts: { environment?: string; type?: string; objectId?: string } = {},
): Promise<string> {
  const id = ulid(at.getTime());
  const objectId = opts.objectId ?? ulid(at.getTime());
  const type = opts.type ?? 'order.created';
  const envelope = {
    id,
    object: 'event',
    created: Math.floor(at.getTime() / 1000),
    livemode: opts.environment === 'production',
    type,
    data: { object: { id: objectId, status: 'created' } },
  };
  await svc.rt.db.execute(
    sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at) values (${id}, ${who.partnerId}, ${opts.environment ?? 'sandbox'}, ${type}, ${objectId}, ${JSON.stringify(envelope)}::jsonb, ${at.toISOString()}::timestamptz)`,
  );
  return id;
}

async function eventExists(id: string): Promise<boolean> {
  return (await svc.rt.db.execute(sql`select 1 from events where id = ${id}`)).length === 1;
}

const DAY = 86_400_000;

describe('GET /partner/event-types', () => {
  it('lists every catalog type with a description and an example envelope whose object has the matching status', async () => {
    // In the first version, whose envelopes embed the order whole; the latest's examples are checked below.
    const res = expectStatus(200, await clientFor(partner, { version: FIRST_VERSION }).GET('/partner/event-types'));
    expect(res).toMatchObject({ object: 'list', has_more: false });
    // The first version's examples: the stored envelope, which the latest version's types do not describe.
    const types = res.data as unknown as { object: string; type: string; description: string; example: EventEnvelope }[];
    expect(types.map((t) => t.type).sort()).toEqual(Object.keys(CATALOG).sort());
    for (const t of types) {
      expect(t.object).toBe('event_type');
      expect(t.description, t.type).toEqual(expect.any(String));
      expect(t.description.length, t.type).toBeGreaterThan(10);
      expect(() => firstVersionEvent.parse(t.example), t.type).not.toThrow();
      expect(Object.keys(t.example).sort()).toEqual(['created', 'data', 'id', 'livemode', 'object', 'type']);
      expect(t.example).toMatchObject({ object: 'event', type: t.type, livemode: false });
      expect(t.example.data.object.status, t.type).toBe(CATALOG[t.type]);
      if (t.type.startsWith('order.')) {
        // The example's object is an order exactly as GET /partner/orders/{id} shapes it.
        const order = orderResource.parse(t.example.data.object);
        expect(order.status_history.at(-1)!.status).toBe(order.status);
        expect(order.updated).toBe(order.status_history.at(-1)!.at);
        expect(Object.keys(t.example.data.object).sort()).toEqual(Object.keys(orderResource.shape).sort());
      } else if (t.type !== 'webhook.test') {
        // The subscription as GET /partner/webhooks/{id} shapes it, with its failing streak.
        const { failure_streak, ...subscription } = t.example.data.object;
        expect(() => webhookResource.parse(subscription), t.type).not.toThrow();
        expect(Object.keys(subscription).sort()).toEqual(Object.keys(webhookResource.shape).sort());
        expect(Object.keys(failure_streak as object).sort()).toEqual(
          ['disables_after', 'ended', 'failed_attempts', 'last_failure', 'stage', 'started'].sort(),
        );
      } else {
        expect(t.example.data.object).toEqual({
          id: expect.any(String),
          object: 'webhook_subscription',
          url: expect.stringMatching(/^https:\/\//),
          status: 'enabled',
        });
      }
    }
    const cancelled = types.find((t) => t.type === 'order.cancelled')!.example.data.object;
    expect(cancelled.cancellation).toEqual({ reason: expect.any(String), source: expect.any(String) });
  });

  it('shows the examples in the latest version: the order without its history, with the attributes the event changed', async () => {
    const res = expectStatus(200, await clientFor(partner).GET('/partner/event-types'));
    for (const t of res.data) {
      expect(() => eventResource.parse(t.example), t.type).not.toThrow();
      expect(t.example).toMatchObject({ api_version: LATEST_VERSION, type: t.type });
      expect(t.example.data).not.toHaveProperty('object.status_history');
      // Order moves say what they changed; a creation, webhook.test and the operational events do not.
      if (!t.type.startsWith('order.') || t.type === 'order.created') expect(t.example.data).not.toHaveProperty('previous_attributes');
      else expect(t.example.data).toHaveProperty('previous_attributes.status');
    }
  });

  it('needs credentials', async () => {
    expect((await call('GET', '/partner/event-types', { baseUrl: svc.url, headers: {} })).status).toBe(401);
  });
});

describe('GET /partner/events', () => {
  let lister: TestPartner;
  let a: string;
  let b: string;
  let c: string;
  let all: EventEnvelope[];

  beforeAll(async () => {
    lister = await createTestPartner(svc);
    // A partner of before versions, so it speaks the first version, whose envelopes are the stored ones (the
    // latest's are rendered from them: test/api/versions.test.ts).
    await svc.rt.db.execute(sql`update partners set first_pin_version = ${FIRST_VERSION} where id = ${lister.partnerId}`);
    a = (await newOrder(lister)).id;
    b = (await newOrder(lister)).id;
    c = (await newOrder(lister)).id;
    const api = clientFor(lister);
    for (const status of ['courier_assigned', 'arrived_at_pickup'] as const) {
      expectStatus(200, await api.POST('/partner/orders/{id}/simulate', { params: { path: { id: a } }, body: { status } }));
    }
    expectStatus(200, await api.POST('/partner/orders/{id}/cancel', { params: { path: { id: c } }, body: {} }));
    all = await list(lister);
  });

  it("lists the partner's events newest first, each the stored envelope", async () => {
    expect(all).toHaveLength(6);
    expect(ids(all)).toEqual([...ids(all)].sort().reverse());
    const rows = await svc.rt.db.execute<{ envelope: EventEnvelope }>(
      sql`select envelope from events where partner_id = ${lister.partnerId} order by id desc`,
    );
    expect(all).toEqual(rows.map((r) => r.envelope));
    for (const e of all) expect(() => firstVersionEvent.parse(e)).not.toThrow();
    expect(all.map((e) => [e.type, e.data.object.id])).toEqual([
      ['order.cancelled', c],
      ['order.arrived_at_pickup', a],
      ['order.courier_assigned', a],
      ['order.created', c],
      ['order.created', b],
      ['order.created', a],
    ]);
  });

  it('filters by type and by order_id, alone and together', async () => {
    expect((await list(lister, { type: 'order.created' })).map((e) => e.data.object.id)).toEqual([c, b, a]);
    expect(ids(await list(lister, { type: 'order.cancelled' }))).toEqual(ids(all.filter((e) => e.type === 'order.cancelled')));
    expect(await list(lister, { type: 'order.delivered' })).toEqual([]);
    const ofA = await list(lister, { order_id: a });
    expect(ofA.map((e) => e.type)).toEqual(['order.arrived_at_pickup', 'order.courier_assigned', 'order.created']);
    expect(ofA.every((e) => e.data.object.id === a)).toBe(true);
    expect(ids(await list(lister, { order_id: a, type: 'order.courier_assigned' }))).toEqual(
      ids(ofA.filter((e) => e.type === 'order.courier_assigned')),
    );
    expect(await list(lister, { order_id: b, type: 'order.cancelled' })).toEqual([]);
    expect(await list(lister, { order_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toEqual([]);
  });

  it('filters by created_gte and created_lte, both inclusive to the second', async () => {
    const who = await createTestPartner(svc);
    const now = Date.now();
    const second = Math.floor(now / 1000) - 7200;
    const old = await insertEvent(who, new Date(second * 1000 + 700));
    const older = await insertEvent(who, new Date((second - 1) * 1000));
    const recent = await insertEvent(who, new Date(now - 60_000));
    expect(ids(await list(who))).toEqual([recent, old, older]);
    expect(ids(await list(who, { created_lte: second }))).toEqual([old, older]);
    expect(ids(await list(who, { created_lte: second - 1 }))).toEqual([older]);
    expect(ids(await list(who, { created_gte: second }))).toEqual([recent, old]);
    expect(ids(await list(who, { created_gte: second + 1 }))).toEqual([recent]);
    expect(ids(await list(who, { created_gte: second, created_lte: second }))).toEqual([old]);
    expect(await list(who, { created_gte: Math.floor(now / 1000) + 3600 })).toEqual([]);
    // The envelope's `created` is the value the filters compare.
    for (const e of await list(who, { created_gte: second, created_lte: second })) expect(e.created).toBe(second);
  });

  it('paginates with limit, starting_after and has_more', async () => {
    const pages: EventEnvelope[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await page(lister, { limit: 4, starting_after: cursor });
      pages.push(res.data as EventEnvelope[]);
      if (!res.has_more) break;
      expect(res.data).toHaveLength(4);
      cursor = res.data.at(-1)!.id;
    }
    expect(pages.map((p) => p.length)).toEqual([4, 2]);
    expect(pages.flat()).toEqual(all);
    const first = await page(lister, { limit: 2 });
    expect(first).toMatchObject({ object: 'list', has_more: true });
    expect(ids(first.data)).toEqual(ids(all.slice(0, 2)));
    const filtered = await page(lister, { type: 'order.created', limit: 1, starting_after: all[3]!.id });
    expect(filtered.has_more).toBe(true);
    expect((filtered.data as EventEnvelope[]).map((e) => e.data.object.id)).toEqual([b]);
    expect(await page(lister, { starting_after: all.at(-1)!.id })).toEqual({ object: 'list', data: [], has_more: false });
    // Default page size is 20.
    expect((await page(lister)).data).toEqual(all);
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=1.5',
    'starting_after=not-a-ulid',
    `starting_after=${'Z'.repeat(27)}`,
    'starting_after=%00',
    'created_gte=yesterday',
    'created_lte=-1',
    'created_lte=99999999999999',
    'created_gte=8640000000000',
    // Whole numbers are decimal digits only: Number() would read these as 16, 0, 10, 5 and 0.
    'created_gte=0x10',
    'created_gte=%20',
    'created_lte=1e1',
    'limit=%2B5',
    'limit=',
    'type=order.teleported',
    'type=%00',
    'order_id=not-an-order',
    'order_id=%00',
    'unknown=1',
  ])('rejects ?%s with 400', async (query) => {
    const res = await call('GET', `/partner/events?${query}`, lister);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.param).toBe(query.split('=')[0]);
  });

  it('accepts the extreme bounds of the created range', async () => {
    expect(await list(lister, { created_lte: 253402300799 })).toEqual(all);
    expect(await list(lister, { created_gte: 253402300799 })).toEqual([]);
    expect(await list(lister, { created_gte: 0, created_lte: 0 })).toEqual([]);
  });

  it('GET /partner/events/{id} returns the envelope as listed; unknown ids are 404', async () => {
    for (const e of all) expect(expectStatus(200, await getEvent(lister, e.id))).toEqual(e);
    // Raw: an id that is not one (the client would encode '%00'), as a partner's own code might send it.
    for (const id of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', '%00', all[0]!.id.toLowerCase()]) {
      const res = await call('GET', `/partner/events/${id}`, lister);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
  });

  it('needs credentials', async () => {
    expect((await call('GET', '/partner/events', { baseUrl: svc.url, headers: {} })).status).toBe(401);
    expect(
      (
        await call('GET', `/partner/events/${all[0]!.id}`, {
          ...lister,
          headers: { 'x-client-id': lister.clientId, 'x-api-key': 'sk_sandbox_wrong' },
        })
      ).status,
    ).toBe(401);
  });
});

describe('isolation', () => {
  it("another partner neither lists nor fetches this partner's events", async () => {
    const mine = await createTestPartner(svc);
    const theirs = await createTestPartner(svc);
    const order = await newOrder(mine);
    const [event] = await list(mine);
    expect(event!.data.object.id).toBe(order.id);
    expect((await getEvent(theirs, event!.id)).response.status).toBe(404);
    expect(await list(theirs)).toEqual([]);
    expect(await list(theirs, { order_id: order.id })).toEqual([]);
    // A cursor is only a position: one above every id still shows nothing of another partner.
    expect(await list(theirs, { starting_after: 'Z'.repeat(26) })).toEqual([]);
  });

  it("the same partner's production credential sees no sandbox events, and the sandbox one no production events", async () => {
    const sandbox = await createTestPartner(svc);
    const sandboxOrder = await newOrder(sandbox);
    await approveGoLive(cliContext(svc.rt), sandbox.partnerId);
    const production = await createTestPartner(svc, { environment: 'production', partnerId: sandbox.partnerId });
    const sandboxEvents = await list(sandbox);
    expect(sandboxEvents).toHaveLength(1);
    expect(await list(production)).toEqual([]);
    expect((await getEvent(production, sandboxEvents[0]!.id)).response.status).toBe(404);
    expect(await list(production, { order_id: sandboxOrder.id })).toEqual([]);

    const liveOrder = await newOrder(production);
    const liveEvents = await list(production);
    expect(liveEvents.map((e) => [e.type, e.livemode, e.data.object.id])).toEqual([['order.created', true, liveOrder.id]]);
    expect(expectStatus(200, await getEvent(production, liveEvents[0]!.id))).toEqual(liveEvents[0]);
    expect((await getEvent(sandbox, liveEvents[0]!.id)).response.status).toBe(404);
    expect(ids(await list(sandbox))).toEqual(ids(sandboxEvents));
  });
});

describe('retention', () => {
  // Rows here have no week partition (the test database's weeks begin at its making), so they sit in the default
  // partitions, which retention empties row by row; whole weeks are test/history/retention.test.ts's.
  it('purges events older than EVENT_RETENTION_DAYS (30 by default) and keeps the rest', async () => {
    expect(svc.env.EVENT_RETENTION_DAYS).toBe(30);
    const who = await createTestPartner(svc);
    const now = Date.now();
    const expired = await insertEvent(who, new Date(now - 31 * DAY));
    const kept = await insertEvent(who, new Date(now - 29 * DAY));
    const fresh = await insertEvent(who, new Date(now));
    // The scheduled purge may run meanwhile, so the end state is what is checked here.
    await retireHistory({ ctx: jobContext(svc.rt, 'test.retention') });
    expect(await eventExists(expired)).toBe(false);
    expect(await eventExists(kept)).toBe(true);
    expect(ids(await list(who))).toEqual([fresh, kept]);
  });

  it('honours a configured EVENT_RETENTION_DAYS', async () => {
    const who = await createTestPartner(svc);
    const now = Date.now();
    const eight = await insertEvent(who, new Date(now - 8 * DAY));
    const six = await insertEvent(who, new Date(now - 6 * DAY));
    const ctx = jobContext(svc.rt, 'test.retention');
    const retired = await retireHistory({ ctx: { ...ctx, env: { ...ctx.env, EVENT_RETENTION_DAYS: 7 } } });
    expect(retired.defaultRows).toBeGreaterThanOrEqual(1);
    expect(await eventExists(eight)).toBe(false);
    expect(await eventExists(six)).toBe(true);
  });

  it('the maintenance.purge-expired job purges (its schedule: test/jobs/schedules.test.ts)', async () => {
    const who = await createTestPartner(svc);
    const expired = await insertEvent(who, new Date(Date.now() - 40 * DAY));
    const kept = await insertEvent(who, new Date(Date.now() - DAY));
    expect(await svc.rt.boss!.send('maintenance.purge-expired', {})).toBeTruthy();
    await waitFor('the purge job to delete the expired event', async () => !(await eventExists(expired)), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    expect(await eventExists(expired)).toBe(false);
    expect(await eventExists(kept)).toBe(true);
  });
});
