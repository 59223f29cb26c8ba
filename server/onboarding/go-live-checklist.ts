import type { Ctx } from '../context';

export interface Evidence {
  label: string;
  /** A console path (/orders/<id>, /deliveries?subscriptionId=...), when the evidence has a page. */
  href: string | null;
}

export interface ChecklistItem {
  key: string;
  label: string;
  passed: boolean;
  detail: string;
  evidence: Evidence[];
}

// Pass under 5 % refused as invalid over the last 30 days: a client still sending malformed requests
// in the sandbox will send them in production.
const INVALID_SHARE_LIMIT = 0.05;
const INVALID_WINDOW_DAYS = 30;
const EVENT_TYPES_NEEDED = 3;

const q = encodeURIComponent;

/**
 * The go-live review's checklist, computed from the partner's own sandbox record: every item says what
 * it found and links to it in the console. Read-only, one statement per item, all at once.
 */
export async function goLiveChecklist({ ctx, input }: { ctx: Ctx; input: { partnerId: string } }): Promise<ChecklistItem[]> {
  const { partnerId } = input;
  const sql = ctx.sql;
  const [quotes, delivered, cancelled, subscription, testEvent, redelivery, replay, counts] = await Promise.all([
    sql<{ count: number; latest: string | null }[]>`
      select count(*)::int as count, max(id) as latest from quotes where partner_id = ${partnerId} and environment = 'sandbox'`,
    sql<{ id: string }[]>`
      select id from orders where partner_id = ${partnerId} and environment = 'sandbox' and status = 'delivered' order by id desc limit 1`,
    sql<{ id: string }[]>`
      select id from orders where partner_id = ${partnerId} and environment = 'sandbox' and status = 'cancelled' order by id desc limit 1`,
    sql<{ id: string; types: string[] }[]>`
      select d.subscription_id as id, array_agg(distinct d.event_type order by d.event_type) as types
        from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
       where s.partner_id = ${partnerId} and s.environment = 'sandbox' and d.status = 'succeeded' and d.event_type <> 'webhook.test'
       group by d.subscription_id order by count(distinct d.event_type) desc, d.subscription_id desc limit 1`,
    sql<{ id: string }[]>`
      select d.id from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
       where s.partner_id = ${partnerId} and s.environment = 'sandbox' and d.event_type = 'webhook.test' and d.status = 'succeeded'
       order by d.id desc limit 1`,
    sql<{ id: string; trigger: string }[]>`
      select d.id, a.trigger from webhook_attempts a
        join webhook_deliveries d on d.id = a.delivery_id join webhook_subscriptions s on s.id = d.subscription_id
       where s.partner_id = ${partnerId} and s.environment = 'sandbox' and a.trigger in ('manual', 'replay')
       order by a.id desc limit 1`,
    sql<{ id: string; subscription_id: string }[]>`
      select id, subscription_id from webhook_replays where partner_id = ${partnerId} and environment = 'sandbox' order by id desc limit 1`,
    sql<{ requests: number; invalid: number; replayed: number }[]>`
      select coalesce(sum(requests), 0)::int as requests, coalesce(sum(invalid), 0)::int as invalid,
        coalesce(sum(replayed), 0)::int as replayed from partner_request_counts
       where partner_id = ${partnerId} and environment = 'sandbox' and day > current_date - ${INVALID_WINDOW_DAYS}::int`,
  ]);

  const quoteCount = quotes[0]?.count ?? 0;
  const sub = subscription[0];
  const subTypes = sub?.types ?? [];
  const tried = redelivery[0];
  const replayRow = replay[0];
  const { requests, invalid, replayed } = counts[0] ?? { requests: 0, invalid: 0, replayed: 0 };
  const share = requests > 0 ? invalid / requests : 0;

  return [
    {
      key: 'quotes',
      label: 'Quotes created',
      passed: quoteCount > 0,
      detail: quoteCount > 0 ? `${quoteCount} quote${quoteCount === 1 ? '' : 's'} in the sandbox` : 'No quote yet',
      evidence: quotes[0]?.latest ? [{ label: `latest ${quotes[0].latest}`, href: null }] : [],
    },
    {
      key: 'order_delivered_and_cancelled',
      label: 'An order taken to delivered and one cancelled',
      passed: delivered.length > 0 && cancelled.length > 0,
      detail: `${delivered.length > 0 ? 'a delivered order' : 'no delivered order'}, ${cancelled.length > 0 ? 'a cancelled order' : 'no cancelled order'}`,
      evidence: [...delivered, ...cancelled].map((o) => ({ label: o.id, href: `/orders/${q(o.id)}` })),
    },
    {
      key: 'subscription_event_types',
      label: `A subscription with successful deliveries of at least ${EVENT_TYPES_NEEDED} event types`,
      passed: subTypes.length >= EVENT_TYPES_NEEDED,
      detail: sub
        ? `${subTypes.length} event type${subTypes.length === 1 ? '' : 's'} delivered: ${subTypes.join(', ')}`
        : 'No successful delivery yet',
      evidence: sub
        ? [
            { label: `subscription ${sub.id}`, href: `/subscriptions/${q(sub.id)}` },
            ...subTypes.map((type) => ({ label: type, href: `/deliveries?subscriptionId=${q(sub.id)}&eventType=${q(type)}` })),
          ]
        : [],
    },
    {
      key: 'webhook_test',
      label: 'A webhook.test answered 2xx',
      passed: testEvent.length > 0,
      detail: testEvent.length > 0 ? 'Answered 2xx' : 'No webhook.test answered 2xx yet',
      evidence: testEvent.map((d) => ({ label: d.id, href: `/deliveries/${q(d.id)}` })),
    },
    {
      key: 'redelivery_or_replay',
      label: 'A redelivery or replay tried',
      passed: Boolean(tried || replayRow),
      detail: tried ? `a ${tried.trigger} attempt` : replayRow ? 'a replay' : 'No redelivery or replay yet',
      evidence: [
        ...(tried ? [{ label: tried.id, href: `/deliveries/${q(tried.id)}` }] : []),
        ...(replayRow ? [{ label: `replay ${replayRow.id}`, href: `/replays?subscriptionId=${q(replayRow.subscription_id)}` }] : []),
      ],
    },
    {
      key: 'idempotency_retry',
      label: 'An Idempotency-Key retry',
      passed: replayed > 0,
      detail:
        replayed > 0 ? `${replayed} request${replayed === 1 ? '' : 's'} answered from a stored response` : 'No retried Idempotency-Key yet',
      evidence: [],
    },
    {
      key: 'invalid_share',
      label: `Under ${INVALID_SHARE_LIMIT * 100} % of requests refused as invalid (last ${INVALID_WINDOW_DAYS} days)`,
      passed: requests > 0 && share < INVALID_SHARE_LIMIT,
      detail: requests > 0 ? `${invalid} of ${requests} requests (${(share * 100).toFixed(1)} %)` : 'No request counted yet',
      evidence: [],
    },
  ];
}
