import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newOrder, newQuote } from '../support/partner-api';
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

interface Route {
  name: string;
  /** Sets up what the request needs; returns its path, body, and how to count its effect. */
  prepare(): Promise<{ path: string; body: unknown; effect: () => Promise<number> }>;
}

const webhookUrl = 'https://localhost:9443/hooks';

const routes: Route[] = [
  {
    name: 'POST /partner/quotes',
    prepare: async () => ({
      path: '/partner/quotes',
      body: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } },
      effect: () => count(sql`select count(*)::int as n from quotes where partner_id = ${partner.partnerId}`),
    }),
  },
  {
    name: 'POST /partner/orders',
    prepare: async () => ({
      path: '/partner/orders',
      body: { quote_id: await newQuote(partner) },
      effect: () => count(sql`select count(*)::int as n from orders where partner_id = ${partner.partnerId}`),
    }),
  },
  {
    name: 'POST /partner/orders/{id}/cancel',
    prepare: async () => {
      const order = await newOrder(partner);
      return {
        path: `/partner/orders/${order.id}/cancel`,
        body: { reason: 'changed my mind' },
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${order.id} and type = 'order.cancelled'`),
      };
    },
  },
  {
    name: 'POST /partner/orders/{id}/simulate',
    prepare: async () => {
      const order = await newOrder(partner);
      return {
        path: `/partner/orders/${order.id}/simulate`,
        body: {},
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${order.id} and type <> 'order.created'`),
      };
    },
  },
  {
    name: 'POST /partner/webhooks',
    prepare: async () => ({
      path: '/partner/webhooks',
      body: { url: webhookUrl, description: `fault ${Math.random()}` },
      effect: () =>
        count(sql`select count(*)::int as n from webhook_subscriptions where partner_id = ${partner.partnerId} and deleted_at is null`),
    }),
  },
  {
    name: 'POST /partner/webhooks/{id}/rotate-secret',
    prepare: async () => {
      const created = await call('POST', '/partner/webhooks', partner, { url: webhookUrl });
      return {
        path: `/partner/webhooks/${created.body.id}/rotate-secret`,
        body: {},
        effect: () =>
          count(sql`select count(*)::int as n from audit_log where action = 'webhook.rotate_secret' and target_id = ${created.body.id}`),
      };
    },
  },
  {
    name: 'POST /partner/webhooks/{id}/test',
    prepare: async () => {
      const created = await call('POST', '/partner/webhooks', partner, { url: webhookUrl });
      return {
        path: `/partner/webhooks/${created.body.id}/test`,
        body: {},
        effect: () => count(sql`select count(*)::int as n from events where object_id = ${created.body.id} and type = 'webhook.test'`),
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
      const { path, body, effect } = await route.prepare();
      const before = await effect();
      await svc.rt.db.execute(sql`alter sequence idempotency_fault restart`);
      const who = { ...partner, headers: { ...partner.headers, 'idempotency-key': `fault-${Math.random()}` } };

      const failed = await call('POST', path, who, body);
      expect(failed.status, JSON.stringify(failed.body)).toBeGreaterThanOrEqual(500);
      expect(failed.body.error.type).toBe('api_error');
      expect(JSON.stringify(failed.body)).not.toContain('injected');
      expect(await effect()).toBe(before);

      const retried = await call('POST', path, who, body);
      expect(retried.status, JSON.stringify(retried.body)).toBeLessThan(300);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(await effect()).toBe(before + 1);

      const replayed = await call('POST', path, who, body);
      expect(replayed.status).toBe(retried.status);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(retried.body);
      expect(await effect()).toBe(before + 1);
    },
  );
});
