import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobContext } from '@/jobs/definition';
import { idFloor, newId, newRequestId } from '@/server/ids';
import { lookupStatement } from '@/server/lookup/find-by-id';
import { FAILED_REQUESTS_KEPT, purgeOldFailedRequests } from '@/server/request-failures/purge';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { call, clientFor, expectStatus, newOrder, newQuote, newSubscription, type Caller } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The console's "find by id": every kind of id the platform prints names its object, with its partner and
// environment; an external id two partners share names both orders; a request id names the order it
// created or the error it got; anything else names nothing. Support sees what an admin sees.

const FIND = `query ($id: String!) {
  findById(id: $id) {
    kind id matchedBy partnerId partnerName environment label subscriptionId
    failure { method path status code message at }
  }
}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches as the API answered them
type Match = any;

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;
let a: TestPartner;
let b: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let subscriptionId: string;
let order: Match;
let orderRequestId: string;
let eventId: string;
let deliveryId: string;
let replayId: string;

async function find(id: string, who: TestOperator = admin): Promise<Match[]> {
  return (await gqlData(who, FIND, { id })).findById;
}

/** The one match of `id`, checked to be of `kind`. */
async function only(id: string, kind: string): Promise<Match> {
  const matches = await find(id);
  expect(matches, JSON.stringify(matches)).toHaveLength(1);
  expect(matches[0].kind).toBe(kind);
  return matches[0];
}

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = await startReceiver();
  [admin, support] = await Promise.all([createTestOperator(svc, 'admin'), createTestOperator(svc, 'support')]);
  a = await createTestPartner(svc);
  b = await createTestPartner(svc, { environment: 'production' });
  await svc.rt.sql`update partners set name = 'Partner B' where id = ${b.partnerId}`;
  await svc.rt.sql`update partners set name = 'Partner A' where id = ${a.partnerId}`;
  subscriptionId = (await newSubscription(a, { url: `${receiver.url}/hook`, event_filters: ['order.created'] })).id;

  const api = clientFor(a);
  const created = await api.POST('/partner/orders', { body: { quote_id: await newQuote(a), external_id: 'shared-ref' } });
  order = expectStatus(201, created);
  orderRequestId = created.response.headers.get('x-request-id')!;
  await newOrder(b, { external_id: 'shared-ref' });

  const events = expectStatus(200, await api.GET('/partner/events', { params: { query: { order_id: order.id } } }));
  eventId = events.data[0]!.id;
  const deliveries = await waitFor('the order.created delivery', async () => {
    const res = expectStatus(200, await api.GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: subscriptionId } } }));
    return res.data.length > 0 ? res.data : undefined;
  });
  deliveryId = deliveries[0]!.id;
  const replay = expectStatus(
    202,
    await api.POST('/partner/webhooks/{id}/replay', {
      params: { path: { id: subscriptionId } },
      body: { since: Math.floor(Date.now() / 1000) - 60 },
    }),
  );
  // 200 answers a dry run, 202 a replay: the type is their union.
  if (!('id' in replay)) throw new Error(`a dry run answered: ${JSON.stringify(replay)}`);
  replayId = replay.id;
}, 60_000);
afterAll(() => receiver.close());

describe('findById', () => {
  it('finds an order, an event, a delivery, a subscription, a replay and a partner by id', async () => {
    expect(await only(order.id, 'order')).toEqual({
      kind: 'order',
      id: order.id,
      matchedBy: 'id',
      partnerId: a.partnerId,
      partnerName: 'Partner A',
      environment: 'sandbox',
      label: 'created, external id shared-ref',
      subscriptionId: null,
      failure: null,
    });
    expect(await only(eventId, 'event')).toMatchObject({
      id: eventId,
      partnerId: a.partnerId,
      environment: 'sandbox',
      label: 'order.created',
    });
    expect(await only(deliveryId, 'delivery')).toMatchObject({ id: deliveryId, partnerId: a.partnerId, subscriptionId });
    expect((await only(deliveryId, 'delivery')).label).toMatch(/^order\.created, (pending|succeeded)$/);
    expect(await only(subscriptionId, 'subscription')).toMatchObject({
      id: subscriptionId,
      partnerId: a.partnerId,
      environment: 'sandbox',
      label: `${receiver.url}/hook`,
      subscriptionId,
    });
    expect(await only(replayId, 'replay')).toMatchObject({ id: replayId, partnerId: a.partnerId, environment: 'sandbox', subscriptionId });
    expect(await only(b.partnerId, 'partner')).toMatchObject({
      id: b.partnerId,
      partnerId: b.partnerId,
      partnerName: 'Partner B',
      environment: null,
      label: 'go-live approved',
    });
  });

  it('finds a credential by its client id, and an order by the quote it used; an unused quote names its partner', async () => {
    expect(await only(a.clientId, 'credential')).toMatchObject({
      id: a.clientId,
      matchedBy: 'client_id',
      partnerId: a.partnerId,
      environment: 'sandbox',
      label: `key ending ${a.apiKey.slice(-4)}`,
    });
    expect(await only(order.quote_id, 'order')).toMatchObject({ id: order.id, matchedBy: 'quote_id' });
    const unused = await newQuote(b);
    expect(await only(unused, 'quote')).toMatchObject({ id: unused, partnerId: b.partnerId, environment: 'production' });
  });

  it('an external id two partners use names both orders', async () => {
    const matches = await find('shared-ref');
    expect(matches.map((m: Match) => [m.kind, m.matchedBy, m.partnerName, m.environment])).toEqual([
      ['order', 'external_id', expect.any(String), expect.any(String)],
      ['order', 'external_id', expect.any(String), expect.any(String)],
    ]);
    expect(new Set(matches.map((m: Match) => m.partnerId))).toEqual(new Set([a.partnerId, b.partnerId]));
    expect(matches.find((m: Match) => m.partnerId === b.partnerId).environment).toBe('production');
  });

  it('a request id names the order that request created', async () => {
    expect(orderRequestId).toMatch(/^req_/);
    expect(await only(orderRequestId, 'order')).toMatchObject({ id: order.id, matchedBy: 'request_id', partnerId: a.partnerId });
  });

  it('a request id of an error body names the failed request: method, path, status, code and message', async () => {
    const res = await clientFor(a).POST('/partner/orders', { body: { quote_id: newId() } });
    expect(res.response.status).toBe(404);
    const error = res.error!.error;
    const requestId = error.request_id;
    expect(requestId).toBe(res.response.headers.get('x-request-id'));
    const match = await only(requestId, 'failed_request');
    expect(match).toMatchObject({
      id: requestId,
      matchedBy: 'request_id',
      partnerId: a.partnerId,
      environment: 'sandbox',
      label: `POST /partner/orders: 404 ${error.code}`,
      failure: { method: 'POST', path: '/partner/orders', status: 404, code: error.code, message: error.message },
    });
    expect(Math.abs(Date.parse(match.failure.at) - Date.now())).toBeLessThan(60_000);

    // Raw: a quote_id that is not a string.
    const invalid = await call('POST', '/partner/orders', a, { quote_id: 42 });
    expect(invalid.status).toBe(400);
    expect((await only(invalid.body.error.request_id, 'failed_request')).failure).toMatchObject({
      status: 400,
      code: invalid.body.error.code,
    });
  });

  it('an idempotent retry of a failed request is not kept again: the first request id names it', async () => {
    const params = { header: { 'Idempotency-Key': `k-${newId()}` } };
    const body = { quote_id: newId() };
    const first = await clientFor(a).POST('/partner/orders', { params, body });
    const retry = await clientFor(a).POST('/partner/orders', { params, body });
    expect([first.response.status, retry.response.status, retry.response.headers.get('idempotent-replayed')]).toEqual([404, 404, 'true']);
    expect(retry.error?.error.request_id).toBe(first.error?.error.request_id);
    expect(await only(first.error!.error.request_id, 'failed_request')).toMatchObject({ failure: { status: 404 } });
    expect(await find(retry.response.headers.get('x-request-id')!)).toEqual([]);
  });

  it('keeps no failure of a request that was not admitted (no valid key), nor of a successful one', async () => {
    const stranger: Caller = { baseUrl: a.baseUrl, headers: { ...a.headers, 'x-api-key': 'wrong' } };
    const refused = await call('GET', '/partner/events', stranger);
    expect(refused.status).toBe(401);
    expect(await find(refused.body.error.request_id)).toEqual([]);
    const fine = await clientFor(a).GET('/partner/events');
    expect(fine.response.status).toBe(200);
    expect(await find(fine.response.headers.get('x-request-id')!)).toEqual([]);
  });

  it('trims whitespace and quotes, and reads an id in lower case', async () => {
    for (const pasted of [
      `  ${order.id}\n`,
      `"${order.id}"`,
      `'${order.id}'`,
      `“${order.id}”`,
      `\`${order.id}\``,
      order.id.toLowerCase(),
    ]) {
      expect(
        (await find(pasted)).map((m: Match) => m.id),
        pasted,
      ).toEqual([order.id]);
    }
    expect((await find(` "${a.clientId.toUpperCase().replace('CI_', 'ci_')}" `)).map((m: Match) => m.id)).toEqual([a.clientId]);
    expect((await find(' "shared-ref" ')).length).toBe(2);
  });

  it('names nothing for an unknown id, nonsense, an empty or overlong text', async () => {
    for (const text of [newId(), newRequestId(), `ci_${newId()}`, 'nonsense', '', '   ', '""', 'x'.repeat(500), 'a\u0000b']) {
      expect(await find(text), JSON.stringify(text)).toEqual([]);
    }
  });

  it('support finds what an admin finds', async () => {
    for (const id of [order.id, eventId, subscriptionId, a.partnerId, a.clientId, orderRequestId, 'shared-ref']) {
      expect(await find(id, support), id).toEqual(await find(id, admin));
    }
    // A delivery's and a replay's labels move with their status: the same object is enough.
    expect((await find(deliveryId, support)).map((m: Match) => [m.kind, m.id])).toEqual([['delivery', deliveryId]]);
    expect((await find(replayId, support)).map((m: Match) => [m.kind, m.id])).toEqual([['replay', replayId]]);
  });

  it('needs a session', async () => {
    const reply = await gql({ baseUrl: svc.url, cookie: '' }, FIND, { id: order.id });
    expect(reply.status).toBe(401);
  });

  it('reads every table through the index meant for it, never a sequential scan', async () => {
    // Events and deliveries are partitioned by week (server/history/): their rows are read through the primary key of
    // the week that holds them (the id names it; a delivery's id alone looks in every week).
    const plans: [string, (string | RegExp)[]][] = [
      [
        order.id,
        [
          'orders_pkey',
          / events_w\d{8}_pkey /,
          / webhook_deliveries_w\d{8}_pkey /,
          'webhook_subscriptions_pkey',
          'webhook_replays_pkey',
          'partners_pkey',
          'quotes_pkey',
          'orders_quote_idx',
        ],
      ],
      [orderRequestId, ['orders_request_id_idx', 'request_failures_pkey']],
      [a.clientId, ['credentials_client_id_idx']],
      // Not the unique (partner_id, environment, external_id): without its partner it is read whole (or, on
      // Postgres 18, skip-scanned once per partner and environment).
      ['shared-ref', ['orders_external_id_lookup_idx']],
    ];
    for (const [text, indexes] of plans) {
      const plan = await svc.rt.db.transaction(async (tx) => {
        // The tables here are tiny, and a sequential scan is the planner's honest choice for them: this asks
        // which index serves each branch when one can. Without one, a table is still scanned, and that shows.
        await tx.execute(sql`set local enable_seqscan = off`);
        return tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${lookupStatement(text)!}`);
      });
      const shown = plan.map((r) => r['QUERY PLAN']).join('\n');
      expect(shown, shown).not.toMatch(/Seq Scan/);
      for (const index of indexes) {
        if (typeof index === 'string') expect(shown, shown).toContain(` ${index} `);
        else expect(shown, shown).toMatch(index);
      }
      expect(shown, shown).not.toContain('orders_external_id_idx');
    }
  });
});

describe('failed requests are purged', () => {
  async function insertFailure(requestId: string): Promise<void> {
    await svc.rt.sql`
      insert into request_failures (request_id, partner_id, environment, client_id, method, path, status, code, message, at)
      values (${requestId}, ${a.partnerId}, 'sandbox', ${a.clientId}, 'GET', '/partner/events', 400, 'x', 'x', now())`;
  }
  const exists = async (requestId: string) =>
    (await svc.rt.sql`select 1 from request_failures where request_id = ${requestId}`).length === 1;

  it('after FAILED_REQUEST_RETENTION_DAYS (7 by default), by the request id’s time', async () => {
    expect(svc.env.FAILED_REQUEST_RETENTION_DAYS).toBe(7);
    const DAY = 86_400_000;
    const old = `req_${idFloor(new Date(Date.now() - 8 * DAY))}`;
    const recent = `req_${idFloor(new Date(Date.now() - 6 * DAY))}`;
    await insertFailure(old);
    await insertFailure(recent);
    const purged = await purgeOldFailedRequests({ ctx: jobContext(svc.rt, 'test.purge') });
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await exists(old)).toBe(false);
    expect(await exists(recent)).toBe(true);
  });

  it(`beyond the newest ${FAILED_REQUESTS_KEPT}`, async () => {
    // Ids of a second ago (a ULID's first 10 characters are its time), all recent enough to be kept by age.
    const second = idFloor(new Date(Date.now() - 1000)).slice(0, 10);
    await svc.rt.sql`
      insert into request_failures (request_id, partner_id, environment, client_id, method, path, status, code, message, at)
      select 'req_' || ${second} || lpad(n::text, 16, '0'), ${a.partnerId}, 'sandbox', ${a.clientId}, 'GET', '/x', 400, 'x', 'x', now()
      from generate_series(1, ${FAILED_REQUESTS_KEPT}) as n`;
    const newest = newRequestId();
    await insertFailure(newest);
    await purgeOldFailedRequests({ ctx: jobContext(svc.rt, 'test.purge') });
    const [{ n }] = (await svc.rt.sql`select count(*)::int as n from request_failures`) as unknown as [{ n: number }];
    expect(n).toBe(FAILED_REQUESTS_KEPT);
    expect(await exists(newest)).toBe(true);
  }, 60_000);
});
