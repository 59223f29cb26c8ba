import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import type { paths } from '@partner-delivery/client';
import { call, clientFor, expectStatus, getOrder, newOrder, newQuote } from '../support/partner-api';
import { approveGoLive, createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  partner = await createTestPartner(svc);
});

const quote = (who = partner) => newQuote(who);
const order = (who = partner, extra: Parameters<typeof newOrder>[1] = {}) => newOrder(who, extra);

type CreateOrder = paths['/partner/orders']['post']['requestBody']['content']['application/json'];
type OrderQuery = NonNullable<paths['/partner/orders']['get']['parameters']['query']>;
const postOrder = (body: CreateOrder, who = partner) => clientFor(who).POST('/partner/orders', { body });
/** The ids of the orders GET /partner/orders answers (200 expected). */
const listOrders = async (who: TestPartner, query: OrderQuery = {}) =>
  expectStatus(200, await clientFor(who).GET('/partner/orders', { params: { query } }));
const idsOf = (orders: { id: string }[]) => orders.map((o) => o.id);
const cancel = (id: string, who = partner, reason?: string) =>
  clientFor(who).POST('/partner/orders/{id}/cancel', { params: { path: { id } }, body: reason === undefined ? {} : { reason } });

describe('POST /partner/orders', () => {
  it('creates an order from a quote with every documented field', async () => {
    const quoteId = await quote();
    const q = expectStatus(200, await clientFor(partner).GET('/partner/quotes/{id}', { params: { path: { id: quoteId } } }));
    const res = await postOrder({
      quote_id: quoteId,
      external_id: 'po-1001',
      pickup: { contact: { name: 'Front desk', phone: '+12125550100' }, instructions: 'Ring twice' },
      dropoff: { contact: { name: 'Ada', phone: '+442071838750' } },
      metadata: { cart: '42' },
    });
    const o = expectStatus(201, res);
    expect(o).toMatchObject({
      object: 'order',
      livemode: false,
      status: 'created',
      quote_id: quoteId,
      external_id: 'po-1001',
      pickup: {
        lat: NYC.pickup.lat,
        lng: NYC.pickup.lng,
        contact: { name: 'Front desk', phone: '+12125550100' },
        instructions: 'Ring twice',
      },
      dropoff: { lat: NYC.dropoff.lat, lng: NYC.dropoff.lng, contact: { name: 'Ada', phone: '+442071838750' }, instructions: null },
      fee: q.fee,
      courier: null,
      cancellation: null,
      metadata: { cart: '42' },
      simulation: null,
    });
    expect(o.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(o.status_history).toEqual([{ status: 'created', at: o.created }]);
    expect(o.updated).toBe(o.created);
    expect(await getOrder(partner, o.id)).toEqual(o);
  });

  it("refuses a used quote (409), an expired one (422) and another partner's or environment's (404)", async () => {
    const quoteId = await quote();
    expectStatus(201, await postOrder({ quote_id: quoteId }));
    const again = await postOrder({ quote_id: quoteId });
    expect(again.response.status).toBe(409);
    expect(again.error?.error.code).toBe('quote_already_used');

    const stale = await quote();
    await svc.rt.db.execute(sql`update quotes set expires_at = now() - interval '1 second' where id = ${stale}`);
    const expired = await postOrder({ quote_id: stale });
    expect(expired.response.status).toBe(422);
    expect(expired.error?.error).toMatchObject({ code: 'quote_expired', param: 'quote_id' });

    const other = await createTestPartner(svc);
    const foreign = await postOrder({ quote_id: await quote() }, other);
    expect(foreign.response.status).toBe(404);
    expect(foreign.error?.error.code).toBe('resource_missing');

    await approveGoLive(cliContext(svc.rt), partner.partnerId);
    const live = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId });
    expect((await postOrder({ quote_id: await quote() }, live)).response.status).toBe(404);
    const liveOrder = await order(live);
    expect(liveOrder.livemode).toBe(true);
    const read = await clientFor(partner).GET('/partner/orders/{id}', { params: { path: { id: liveOrder.id } } });
    expect(read.response.status).toBe(404);
  });

  it('two orders racing for one quote: exactly one wins', async () => {
    const quoteId = await quote();
    const results = await Promise.all(Array.from({ length: 6 }, () => postOrder({ quote_id: quoteId })));
    expect(results.filter((r) => r.response.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.response.status === 409);
    expect(refused.every((r) => r.error?.error.code === 'quote_already_used')).toBe(true);
    expect(refused).toHaveLength(5);
  });

  it('external_id is unique per partner and environment, and the conflict names the existing order', async () => {
    const first = await order(partner, { external_id: 'dup-1' });
    const dup = await postOrder({ quote_id: await quote(), external_id: 'dup-1' });
    expect(dup.response.status).toBe(409);
    expect(dup.error?.error).toMatchObject({ code: 'duplicate_external_id', param: 'external_id', existing_order_id: first.id });
    expect(dup.error?.error.message).toContain(first.id);
    const other = await createTestPartner(svc);
    await order(other, { external_id: 'dup-1' });
  });

  it.each([
    [{ external_id: 'has space' }, 'external_id'],
    [{ external_id: 'x'.repeat(65) }, 'external_id'],
    [{ pickup: { contact: { name: 'A', phone: '2125550100' } } }, 'pickup.contact.phone'],
    [{ dropoff: { contact: { name: 'A', phone: '+0123' } } }, 'dropoff.contact.phone'],
    [{ dropoff: { contact: { phone: '+12125550100' } } }, 'dropoff.contact.name'],
    [{ pickup: { lat: 1 } }, 'pickup.lat'],
    [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ metadata: { k: 1 } }, 'metadata.k'],
    [{ surprise: true }, 'surprise'],
  ])('rejects invalid input %j naming %s', async (extra, param) => {
    const res = await call('POST', '/partner/orders', partner, { quote_id: await quote(), ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error.errors.map((e: { param: string }) => e.param)).toContain(param);
  });

  it('rejects a missing or malformed quote_id with 400', async () => {
    expect((await call('POST', '/partner/orders', partner, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'quote_id' });
    expect((await call('POST', '/partner/orders', partner, { quote_id: 'nope' })).status).toBe(400);
  });
});

describe('GET /partner/orders', () => {
  it('paginates newest first with limit, starting_after and has_more, and filters', async () => {
    const lister = await createTestPartner(svc);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await order(lister, { external_id: `list-${i}` }));
    const ids = made.map((o) => o.id).reverse();
    const page1 = await listOrders(lister, { limit: 2 });
    expect(page1).toMatchObject({ object: 'list', has_more: true });
    expect(idsOf(page1.data)).toEqual(ids.slice(0, 2));
    const page2 = await listOrders(lister, { limit: 2, starting_after: page1.data[1]!.id });
    expect(idsOf(page2.data)).toEqual(ids.slice(2, 4));
    const page3 = await listOrders(lister, { limit: 2, starting_after: page2.data[1]!.id });
    expect(page3).toMatchObject({ has_more: false });
    expect(idsOf(page3.data)).toEqual(ids.slice(4));

    expect(idsOf((await listOrders(lister, { external_id: 'list-3' })).data)).toEqual([made[3]!.id]);
    expectStatus(200, await cancel(made[0]!.id, lister));
    expect(idsOf((await listOrders(lister, { status: 'cancelled' })).data)).toEqual([made[0]!.id]);
    const created = made[2]!.created;
    const range = (await listOrders(lister, { created_gte: created, created_lte: created })).data;
    expect(range.every((o) => o.created === created)).toBe(true);
    expect((await listOrders(lister, { created_gte: created + 10_000 })).data).toEqual([]);
  });

  it("never shows another partner's orders, whatever the cursor", async () => {
    const mine = await createTestPartner(svc);
    const theirs = await createTestPartner(svc);
    const theirOrder = await order(theirs);
    const myOrder = await order(mine);
    expect(idsOf((await listOrders(mine, { limit: 100 })).data)).toEqual([myOrder.id]);
    // A cursor taken from another partner is only a position; it reveals nothing.
    expect(idsOf((await listOrders(mine, { starting_after: 'Z'.repeat(26) })).data)).toEqual([myOrder.id]);
    await listOrders(mine, { starting_after: theirOrder.id });
    const read = await clientFor(mine).GET('/partner/orders/{id}', { params: { path: { id: theirOrder.id } } });
    expect(read.response.status).toBe(404);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'starting_after=not-a-ulid', 'status=flying', 'created_gte=yesterday', 'unknown=1'])(
    'rejects ?%s with 400',
    async (query) => {
      const res = await call('GET', `/partner/orders?${query}`, partner);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    },
  );
});

describe('POST /partner/orders/{id}/cancel', () => {
  it('cancels before pickup with the partner as source', async () => {
    const o = await order();
    const res = expectStatus(200, await cancel(o.id, partner, 'customer changed their mind'));
    expect(res).toMatchObject({ status: 'cancelled', cancellation: { reason: 'customer changed their mind', source: 'partner' } });
    expect(res.status_history.map((h) => h.status)).toEqual(['created', 'cancelled']);
    const plain = await order();
    // Raw: no body at all, which the service accepts though the document (and so the client) asks for one.
    expect((await call('POST', `/partner/orders/${plain.id}/cancel`, partner)).body.cancellation).toEqual({
      reason: 'requested_by_partner',
      source: 'partner',
    });
  });

  it('refuses once the courier has the goods, with a reason', async () => {
    const o = await order();
    for (const status of ['courier_assigned', 'arrived_at_pickup', 'picked_up'] as const) {
      expectStatus(
        200,
        await clientFor(partner).POST('/partner/orders/{id}/simulate', { params: { path: { id: o.id } }, body: { status } }),
      );
    }
    const res = await cancel(o.id);
    expect(res.response.status).toBe(409);
    expect(res.error?.error).toMatchObject({ code: 'cancel_not_allowed', reason: 'courier_has_goods' });
    const cancelled = await order();
    expectStatus(200, await cancel(cancelled.id));
    expect((await cancel(cancelled.id)).error?.error).toMatchObject({
      code: 'cancel_not_allowed',
      reason: 'already_cancelled',
    });
  });

  it('GET answers what each write answered: courier, cancellation and simulation included', async () => {
    // The read is a statement of its own (server/orders/get.ts): every column must come back as the writes present it.
    const simulated = await order(partner, { simulation: { scenario: 'happy_path', step_seconds: 300 }, metadata: { a: 'b' } });
    expect(await getOrder(partner, simulated.id)).toEqual(simulated);
    const o = await order();
    const assigned = expectStatus(
      200,
      await clientFor(partner).POST('/partner/orders/{id}/simulate', {
        params: { path: { id: o.id } },
        body: { status: 'courier_assigned' },
      }),
    );
    expect(assigned.courier).not.toBeNull();
    expect(await getOrder(partner, o.id)).toEqual(assigned);
    const cancelled = expectStatus(200, await cancel(o.id, partner, 'no longer needed'));
    expect(await getOrder(partner, o.id)).toEqual(cancelled);
  });

  it('another partner cannot cancel (404) and the order is untouched', async () => {
    const o = await order();
    const other = await createTestPartner(svc);
    expect((await cancel(o.id, other)).response.status).toBe(404);
    expect((await getOrder(partner, o.id)).status).toBe('created');
  });
});

describe('NUL characters', () => {
  it('are refused with a 400 naming the field, never a 500', async () => {
    const metadata = await call('POST', '/partner/orders', partner, { quote_id: await quote(), metadata: { note: 'a\u0000b' } });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.param).toBe('metadata.note');
    const instructions = await call('POST', '/partner/orders', partner, { quote_id: await quote(), pickup: { instructions: '\u0000' } });
    expect(instructions.body.error.param).toBe('pickup.instructions');
    expect((await call('GET', '/partner/orders?external_id=%00', partner)).status).toBe(400);
    expect((await call('GET', '/partner/orders?created_lte=99999999999999', partner)).status).toBe(400);
    for (const path of ['/partner/orders/%00', '/partner/quotes/%00', '/partner/webhooks/%00', '/partner/orders/abc']) {
      const res = await call('GET', path, partner);
      expect(res.status, path).toBe(404);
    }
    expect((await call('POST', '/partner/orders/%00/cancel', partner, {})).status).toBe(404);
  });
});
