import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { call, newOrder, newQuote } from '../support/partner-api';
import { approveGoLive, createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  partner = await createTestPartner(svc);
});

const quote = (who = partner) => newQuote(who);
const order = (who = partner, extra: Record<string, unknown> = {}) => newOrder(who, extra);

describe('POST /partner/orders', () => {
  it('creates an order from a quote with every documented field', async () => {
    const quoteId = await quote();
    const q = (await call('GET', `/partner/quotes/${quoteId}`, partner)).body;
    const res = await call('POST', '/partner/orders', partner, {
      quote_id: quoteId,
      external_id: 'po-1001',
      pickup: { contact: { name: 'Front desk', phone: '+12125550100' }, instructions: 'Ring twice' },
      dropoff: { contact: { name: 'Ada', phone: '+442071838750' } },
      metadata: { cart: '42' },
    });
    expect(res.status).toBe(201);
    const o = res.body;
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
    expect((await call('GET', `/partner/orders/${o.id}`, partner)).body).toEqual(o);
  });

  it("refuses a used quote (409), an expired one (422) and another partner's or environment's (404)", async () => {
    const quoteId = await quote();
    expect((await call('POST', '/partner/orders', partner, { quote_id: quoteId })).status).toBe(201);
    const again = await call('POST', '/partner/orders', partner, { quote_id: quoteId });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('quote_already_used');

    const stale = await quote();
    await svc.rt.db.execute(sql`update quotes set expires_at = now() - interval '1 second' where id = ${stale}`);
    const expired = await call('POST', '/partner/orders', partner, { quote_id: stale });
    expect(expired.status).toBe(422);
    expect(expired.body.error).toMatchObject({ code: 'quote_expired', param: 'quote_id' });

    const other = await createTestPartner(svc);
    const foreign = await call('POST', '/partner/orders', other, { quote_id: await quote() });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_missing');

    await approveGoLive(cliContext(svc.rt), partner.partnerId);
    const live = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId });
    expect((await call('POST', '/partner/orders', live, { quote_id: await quote() })).status).toBe(404);
    const liveOrder = await order(live);
    expect(liveOrder.livemode).toBe(true);
    expect((await call('GET', `/partner/orders/${liveOrder.id}`, partner)).status).toBe(404);
  });

  it('two orders racing for one quote: exactly one wins', async () => {
    const quoteId = await quote();
    const results = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/partner/orders', partner, { quote_id: quoteId })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'quote_already_used')).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
  });

  it('external_id is unique per partner and environment, and the conflict names the existing order', async () => {
    const first = await order(partner, { external_id: 'dup-1' });
    const dup = await call('POST', '/partner/orders', partner, { quote_id: await quote(), external_id: 'dup-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'duplicate_external_id', param: 'external_id', existing_order_id: first.id });
    expect(dup.body.error.message).toContain(first.id);
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
    const page1 = (await call('GET', '/partner/orders?limit=2', lister)).body;
    expect(page1).toMatchObject({ object: 'list', has_more: true });
    expect(page1.data.map((o: { id: string }) => o.id)).toEqual(ids.slice(0, 2));
    const page2 = (await call('GET', `/partner/orders?limit=2&starting_after=${page1.data[1].id}`, lister)).body;
    expect(page2.data.map((o: { id: string }) => o.id)).toEqual(ids.slice(2, 4));
    const page3 = (await call('GET', `/partner/orders?limit=2&starting_after=${page2.data[1].id}`, lister)).body;
    expect(page3).toMatchObject({ has_more: false });
    expect(page3.data.map((o: { id: string }) => o.id)).toEqual(ids.slice(4));

    expect((await call('GET', '/partner/orders?external_id=list-3', lister)).body.data.map((o: { id: string }) => o.id)).toEqual([
      made[3]!.id,
    ]);
    await call('POST', `/partner/orders/${made[0]!.id}/cancel`, lister, {});
    const cancelled = (await call('GET', '/partner/orders?status=cancelled', lister)).body.data;
    expect(cancelled.map((o: { id: string }) => o.id)).toEqual([made[0]!.id]);
    const created = made[2]!.created;
    const range = (await call('GET', `/partner/orders?created_gte=${created}&created_lte=${created}`, lister)).body.data;
    expect(range.every((o: { created: number }) => o.created === created)).toBe(true);
    expect((await call('GET', `/partner/orders?created_gte=${created + 10_000}`, lister)).body.data).toEqual([]);
  });

  it("never shows another partner's orders, whatever the cursor", async () => {
    const mine = await createTestPartner(svc);
    const theirs = await createTestPartner(svc);
    const theirOrder = await order(theirs);
    const myOrder = await order(mine);
    const list = (await call('GET', '/partner/orders?limit=100', mine)).body.data.map((o: { id: string }) => o.id);
    expect(list).toEqual([myOrder.id]);
    // A cursor taken from another partner is only a position; it reveals nothing.
    const tampered = (await call('GET', `/partner/orders?starting_after=${'Z'.repeat(26)}`, mine)).body.data.map(
      (o: { id: string }) => o.id,
    );
    expect(tampered).toEqual([myOrder.id]);
    expect((await call('GET', `/partner/orders?starting_after=${theirOrder.id}`, mine)).status).toBe(200);
    expect((await call('GET', `/partner/orders/${theirOrder.id}`, mine)).status).toBe(404);
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
    const res = await call('POST', `/partner/orders/${o.id}/cancel`, partner, { reason: 'customer changed their mind' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'customer changed their mind', source: 'partner' } });
    expect(res.body.status_history.map((h: { status: string }) => h.status)).toEqual(['created', 'cancelled']);
    const plain = await order();
    expect((await call('POST', `/partner/orders/${plain.id}/cancel`, partner)).body.cancellation).toEqual({
      reason: 'requested_by_partner',
      source: 'partner',
    });
  });

  it('refuses once the courier has the goods, with a reason', async () => {
    const o = await order();
    for (const status of ['courier_assigned', 'arrived_at_pickup', 'picked_up']) {
      expect((await call('POST', `/partner/orders/${o.id}/simulate`, partner, { status })).status).toBe(200);
    }
    const res = await call('POST', `/partner/orders/${o.id}/cancel`, partner, {});
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'cancel_not_allowed', reason: 'courier_has_goods' });
    const cancelled = await order();
    await call('POST', `/partner/orders/${cancelled.id}/cancel`, partner, {});
    expect((await call('POST', `/partner/orders/${cancelled.id}/cancel`, partner, {})).body.error).toMatchObject({
      code: 'cancel_not_allowed',
      reason: 'already_cancelled',
    });
  });

  it('another partner cannot cancel (404) and the order is untouched', async () => {
    const o = await order();
    const other = await createTestPartner(svc);
    expect((await call('POST', `/partner/orders/${o.id}/cancel`, other, {})).status).toBe(404);
    expect((await call('GET', `/partner/orders/${o.id}`, partner)).body.status).toBe('created');
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
