import { drizzle } from 'drizzle-orm/postgres-js';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor, type Ctx, type OperatorActor } from '@/server/context';
import { createPartner } from '@/server/partners/create';
import { createWebhook } from '@/server/webhooks/create';
import { searchDeliveries, type DeliveryFilter } from '@/server/webhooks/search-deliveries';
import { startTestService, type TestService } from '../support/service';

// The console's deliveries page filtered to one partner, or to an event type, when many deliveries of others were
// made since the newest it shows: it reads what it shows, not everything newer (issue 29: a small partner's page took
// p50 69 ms, an event type's 47 ms, beside 115,770 newer deliveries of another partner's; bench 2026-11-27). Counted
// from the statement's own plan, run with EXPLAIN ANALYZE.

const PAGE = 50;
const SMALL = 120;
const NEWER = 20_000;

let svc: TestService;
let operator: Ctx<OperatorActor>;
let small: { partnerId: string; subscriptions: string[] };

/** A partner with `hooks` subscriptions, and `count` events of `type` each delivered to one of them in turn, ending `endMs`. */
async function partnerWithDeliveries(name: string, hooks: number, count: number, endMs: number, type: string) {
  const partner = await createPartner({ ctx: operator, input: { name } });
  const subscriptions: string[] = [];
  for (let n = 0; n < hooks; n++) {
    const hook = await createWebhook({
      ctx: actingFor(operator, { partnerId: partner.id, environment: 'sandbox' }),
      input: { url: `https://hooks.example.com/${partner.id}/${n}` },
    });
    subscriptions.push(hook.id);
  }
  for (let from = 0; from < count; from += 5000) {
    const rows = Array.from({ length: Math.min(5000, count - from) }, (_, i) => {
      const at = endMs - (count - from - i) * 10;
      return { at, event: ulid(at), delivery: ulid(at + 1), subscription: subscriptions[(from + i) % hooks]! };
    });
    const iso = (ms: number) => new Date(ms).toISOString();
    await svc.rt.sql`insert into events ${svc.rt.sql(
      rows.map((r) => ({
        id: r.event,
        partner_id: partner.id,
        environment: 'sandbox',
        type,
        object_id: `ord_${r.event}`,
        envelope: '{}',
        created_at: iso(r.at),
      })),
    )}`;
    await svc.rt.sql`insert into webhook_deliveries ${svc.rt.sql(
      rows.map((r) => ({
        id: r.delivery,
        event_id: r.event,
        subscription_id: r.subscription,
        event_type: type,
        status: 'succeeded',
        attempts: 1,
        created_at: iso(r.at + 1),
        updated_at: iso(r.at + 1),
      })),
    )}`;
  }
  return { partnerId: partner.id, subscriptions };
}

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' }, { resolver: async () => ['93.184.215.14'] });
  operator = cliContext(svc.rt, 'test') as Ctx<OperatorActor>;
  const now = Date.now();
  small = await partnerWithDeliveries('Small Couriers', 2, SMALL, now - 3_600_000, 'order.delivered');
  await partnerWithDeliveries('Busy Couriers', 3, NEWER, now - 60_000, 'order.created');
  await svc.rt.sql`analyze events, webhook_deliveries, webhook_subscriptions`;
});

/** The page the verb answers, and the rows its statement read from webhook_deliveries (its plan, run with EXPLAIN ANALYZE). */
async function pageAndRowsRead(filter: DeliveryFilter, after?: string) {
  const statements: { query: string; params: unknown[] }[] = [];
  const read = drizzle(svc.rt.sql, { logger: { logQuery: (query, params) => statements.push({ query, params }) } });
  const page = await searchDeliveries({
    ctx: { ...operator, read },
    input: { filter, limit: PAGE + 1, after },
  });
  expect(statements).toHaveLength(1);
  const [{ 'QUERY PLAN': plan }] = await svc.rt.sql.unsafe(
    `explain (analyze, format json) ${statements[0]!.query}`,
    statements[0]!.params as never[],
  );
  interface Node {
    'Relation Name'?: string;
    'Actual Rows': number;
    'Actual Loops': number;
    Plans?: Node[];
  }
  const rowsRead = (n: Node): number =>
    (n['Relation Name']?.startsWith('webhook_deliveries') ? n['Actual Rows'] * n['Actual Loops'] : 0) +
    (n.Plans ?? []).reduce((sum, p) => sum + rowsRead(p), 0);
  return { page, rowsRead: rowsRead((plan as { Plan: Node }[])[0]!.Plan) };
}

describe("a partner's deliveries page, with many newer deliveries of another partner's", () => {
  it("reads the partner's newest per subscription, not every newer delivery; pages on without overlap", async () => {
    const first = await pageAndRowsRead({ partnerId: small.partnerId });
    const second = await pageAndRowsRead({ partnerId: small.partnerId }, first.page[PAGE - 1]!.id);
    console.log(
      `[partner page] ${NEWER.toLocaleString('en-US')} newer deliveries of another partner: the small partner's first page read ` +
        `${first.rowsRead} delivery rows, its second ${second.rowsRead}`,
    );
    expect(first.page).toHaveLength(PAGE + 1);
    expect(first.page.every((d) => d.partnerId === small.partnerId)).toBe(true);
    const ids = [...first.page.slice(0, PAGE), ...second.page].map((d) => d.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(Math.min(SMALL, 2 * PAGE + 1));
    // Each subscription's newest page: at most PAGE + 1 rows from each of the two, however many others wrote since.
    expect(first.rowsRead).toBeLessThanOrEqual(small.subscriptions.length * (PAGE + 1));
    expect(second.rowsRead).toBeLessThanOrEqual(small.subscriptions.length * (PAGE + 1));
  });

  it("filtered to an event type, reads that type's newest deliveries, not every newer one of other types", async () => {
    const { page, rowsRead } = await pageAndRowsRead({ eventType: 'order.delivered' });
    console.log(
      `[event type page] ${NEWER.toLocaleString('en-US')} newer deliveries of another type: the page read ${rowsRead} delivery rows`,
    );
    expect(page).toHaveLength(PAGE + 1);
    expect(page.every((d) => d.eventType === 'order.delivered' && d.partnerId === small.partnerId)).toBe(true);
    expect(rowsRead).toBeLessThanOrEqual(PAGE + 1);
  });
});
