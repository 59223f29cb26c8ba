import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, newOrder, newQuote, newSubscription } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The database fails while a request with an Idempotency-Key stores its answer (injected in the
// database: the key's completion raises once). Whatever the route, the change and its key's answer
// are one: the failed request changed nothing, its retry with the same key runs exactly once, and
// later retries replay that answer.

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  await svc.rt.db.execute(sql`create sequence idempotency_fault`);
  await svc.rt.db.execute(
    sql.raw(`create function idempotency_fault() returns trigger language plpgsql as $$
      begin
        if new.state = 'completed' and nextval('idempotency_fault') = 1 then
          raise exception 'injected fault: the connection to the database was lost';
        end if;
        return new;
      end $$`),
  );
  await svc.rt.db.execute(
    sql`create trigger idempotency_fault before update on idempotency_keys for each row execute function idempotency_fault()`,
  );
});
afterAll(async () => {
  await svc.rt.db.execute(sql`drop trigger if exists idempotency_fault on idempotency_keys`);
});

const count = async (query: ReturnType<typeof sql>) => (await svc.rt.db.execute<{ n: number }>(query))[0]!.n;

/** A typed client call's answer, as far as these tests read it. */
interface Answer {
  response: Response;
  data?: unknown;
  error?: { error: { type: string } };
}

interface Route {
  name: string;
  /** Sets up what the request needs; returns how to send it with an Idempotency-Key, and how to count its effect. */
  prepare(): Promise<{ send: (key: string) => Promise<Answer>; effect: () => Promise<number> }>;
}

const keyed = (key: string) => ({ header: { 'Idempotency-Key': key } });

const webhookUrl = 'https://localhost:9443/hooks';

const routes: Route[] = [
  {
    name: 'POST /partner/quotes',
    prepare: async () => ({
      send: (key) =>
        clientFor(partner).POST('/partner/quotes', {
          params: keyed(key),
          body: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } },
        }),
      effect: () => count(sql`select count(*)::int as n from quotes where partner_id = ${partner.partnerId}`),
    }),
  },
  {
    name: 'POST /partner/orders',
    prepare: async () => {
      const quoteId = await newQuote(partner);
      return {
        send: (key) => clientFor(partner).POST('/partner/orders', { params: keyed(key), body: { quote_id: quoteId } }),
        effect: () => count(sql`select count(*)::int as n from orders where partner_id = ${partner.partnerId}`),
      };
    },
  },
  {
    name: 'POST /partner/orders/{id}/cancel',
    prepare: async () => {
      const order = await newOrder(partner);
      return {
        send: (key) =>
          clientFor(partner).POST('/partner/orders/{id}/cancel', {
            params: { path: { id: order.id }, ...keyed(key) },
            body: { reason: 'changed my mind' },
          }),
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${order.id} and type = 'order.cancelled'`),
      };
    },
  },
  {
    name: 'POST /partner/orders/{id}/simulate',
    prepare: async () => {
      const order = await newOrder(partner);
      return {
        send: (key) =>
          clientFor(partner).POST('/partner/orders/{id}/simulate', { params: { path: { id: order.id }, ...keyed(key) }, body: {} }),
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${order.id} and type <> 'order.created'`),
      };
    },
  },
  {
    name: 'POST /partner/webhooks',
    prepare: async () => {
      // One body for every send of the key: another would be a 422.
      const body = { url: webhookUrl, description: `fault ${Math.random()}` };
      return {
        send: (key) => clientFor(partner).POST('/partner/webhooks', { params: keyed(key), body }),
        effect: () =>
          count(sql`select count(*)::int as n from webhook_subscriptions where partner_id = ${partner.partnerId} and deleted_at is null`),
      };
    },
  },
  {
    name: 'POST /partner/webhooks/{id}/rotate-secret',
    prepare: async () => {
      const { id } = await newSubscription(partner, { url: webhookUrl });
      return {
        send: (key) => clientFor(partner).POST('/partner/webhooks/{id}/rotate-secret', { params: { path: { id }, ...keyed(key) } }),
        effect: () => count(sql`select count(*)::int as n from audit_log where action = 'webhook.rotate_secret' and target_id = ${id}`),
      };
    },
  },
  {
    name: 'POST /partner/webhooks/{id}/test',
    prepare: async () => {
      const { id } = await newSubscription(partner, { url: webhookUrl });
      return {
        send: (key) => clientFor(partner).POST('/partner/webhooks/{id}/test', { params: { path: { id }, ...keyed(key) } }),
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${id} and type = 'webhook.test'`),
      };
    },
  },
];

describe('a fault while storing the answer of an idempotent request', () => {
  it.each(routes.map((r) => [r.name, r] as const))(
    '%s: changes nothing; the retry runs once; later retries replay',
    async (_name, route) => {
      // Clean up subscriptions so the per-partner limit never gets in the way.
      await svc.rt.db.execute(sql`update webhook_subscriptions set deleted_at = now() where partner_id = ${partner.partnerId}`);
      const { send, effect } = await route.prepare();
      const before = await effect();
      await svc.rt.db.execute(sql`alter sequence idempotency_fault restart`);
      const key = `fault-${Math.random()}`;

      const failed = await send(key);
      expect(failed.response.status, JSON.stringify(failed.error ?? failed.data)).toBeGreaterThanOrEqual(500);
      expect(failed.error?.error.type).toBe('api_error');
      expect(JSON.stringify(failed.error)).not.toContain('injected');
      expect(await effect()).toBe(before);

      const retried = await send(key);
      expect(retried.response.status, JSON.stringify(retried.error ?? retried.data)).toBeLessThan(300);
      expect(retried.response.headers.get('idempotent-replayed')).toBeNull();
      expect(await effect()).toBe(before + 1);

      const replayed = await send(key);
      expect(replayed.response.status).toBe(retried.response.status);
      expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.data).toEqual(retried.data);
      expect(await effect()).toBe(before + 1);
    },
  );
});
