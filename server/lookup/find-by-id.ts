import { sql, type SQL } from 'drizzle-orm';
import type { Ctx, Environment, OperatorActor } from '../context';
import { couldBeId, pastedId, type IdKind, type IdMatch, type MatchedBy } from './schemas';

/** An external id is the partner's own: many partners may use the same one. A ticket's id shows this many. */
export const EXTERNAL_ID_MATCHES = 20;

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** An order's label: its status, and its external id when it has one. */
const orderLabel = sql.raw(`o.status || coalesce(', external id ' || o.external_id, '')`);

interface MatchRow extends Record<string, unknown> {
  kind: IdKind;
  id: string;
  matched_by: MatchedBy;
  partner_id: string;
  partner_name: string;
  environment: Environment | null;
  label: string;
  subscription_id: string | null;
  f_method: string | null;
  f_path: string | null;
  f_status: number | null;
  f_code: string | null;
  f_message: string | null;
  f_at: string | null;
}

/**
 * What an id pasted from a ticket names, for any operator (support reads all of it, as in the console):
 * every object whose id, external id, client id or request id it is, with its partner and environment.
 * Decided by shape first (`req_` a request id, `ci_` a client id, 26 Crockford characters an object id,
 * looked up in every table that has such ids), and always as an external id, which the partner chose
 * and which may name several orders of several partners. One statement, each branch by a primary key or
 * an index (test/graphql/find-by-id.test.ts reads its plan); empty when nothing matches.
 */
export async function findById({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { id: string } }): Promise<IdMatch[]> {
  const statement = lookupStatement(input.id);
  if (!statement) return [];
  const rows = await ctx.db.execute<MatchRow>(statement);
  // An order can be found twice (its id is also its external id): once, as the first branch found it.
  const seen = new Set<string>();
  const unique = rows.filter((r) => !seen.has(`${r.kind} ${r.id}`) && seen.add(`${r.kind} ${r.id}`));
  return unique.map((r) => ({
    kind: r.kind,
    id: r.id,
    matchedBy: r.matched_by,
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    environment: r.environment,
    label: r.label,
    subscriptionId: r.subscription_id,
    failure:
      r.kind === 'failed_request'
        ? {
            method: r.f_method!,
            path: r.f_path!,
            status: r.f_status!,
            code: r.f_code!,
            message: r.f_message!,
            at: new Date(r.f_at!),
          }
        : null,
  }));
}

/** The one statement findById runs for `text`, or none when the text could name nothing. */
export function lookupStatement(text: string): SQL | undefined {
  const id = pastedId.parse(text);
  if (!couldBeId(id)) return undefined;
  const branches: SQL[] = [];
  // (order of the branches, kind, the object's id, matched by, partner, environment, label, subscription, failed request)
  if (/^req_/i.test(id)) {
    const requestId = `req_${id.slice(4).toUpperCase()}`;
    branches.push(
      sql`select 1, 'order', o.id, 'request_id', o.partner_id, o.environment::text, ${orderLabel}, null, null
        from orders o where o.request_id = ${requestId}`,
      sql`select 2, 'failed_request', f.request_id, 'request_id', f.partner_id, f.environment::text,
          f.method || ' ' || f.path || ': ' || f.status || ' ' || f.code, null, f.request_id
        from request_failures f where f.request_id = ${requestId}`,
    );
  } else if (/^ci_/i.test(id)) {
    branches.push(
      sql`select 1, 'credential', c.client_id, 'client_id', c.partner_id, c.environment::text,
          'key ending ' || c.key_last4 || case when c.revoked_at is null then '' else ', revoked' end, null, null
        from credentials c where c.client_id = ${`ci_${id.slice(3).toUpperCase()}`}`,
    );
  } else if (ULID.test(id)) {
    const u = id.toUpperCase();
    branches.push(
      sql`select 1, 'order', o.id, 'id', o.partner_id, o.environment::text, ${orderLabel}, null, null from orders o where o.id = ${u}`,
      sql`select 2, 'event', e.id, 'id', e.partner_id, e.environment::text, e.type, null, null from events e where e.id = ${u}`,
      sql`select 3, 'delivery', d.id, 'id', s.partner_id, s.environment::text, d.event_type || ', ' || d.status::text, d.subscription_id, null
        from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id where d.id = ${u}`,
      sql`select 4, 'subscription', s.id, 'id', s.partner_id, s.environment::text,
          s.url || case when s.deleted_at is not null then ', deleted' when s.status = 'disabled' then ', disabled' else '' end, s.id, null
        from webhook_subscriptions s where s.id = ${u}`,
      sql`select 5, 'replay', r.id, 'id', r.partner_id, r.environment::text, r.status::text || ', ' || r.events_matched || ' events',
          r.subscription_id, null
        from webhook_replays r where r.id = ${u}`,
      sql`select 6, 'partner', p.id, 'id', p.id, null, 'go-live ' || replace(p.go_live_status::text, '_', ' '), null, null
        from partners p where p.id = ${u}`,
      // A quote an order used opens that order; an unused one has nothing but its partner to show.
      sql`select 7, case when o.id is null then 'quote' else 'order' end, coalesce(o.id, q.id), case when o.id is null then 'id' else 'quote_id' end,
          q.partner_id, q.environment::text, case when o.id is null then 'quote, not used for an order' else ${orderLabel} end, null, null
        from quotes q left join orders o on o.quote_id = q.id where q.id = ${u}`,
    );
  }
  branches.push(
    sql`(select 8, 'order', o.id, 'external_id', o.partner_id, o.environment::text, ${orderLabel}, null, null
        from orders o where o.external_id = ${id} order by o.id desc limit ${EXTERNAL_ID_MATCHES})`,
  );
  return sql`
    select m.kind, m.id, m.matched_by, m.partner_id, p.name as partner_name, m.environment, m.label, m.subscription_id,
      f.method as f_method, f.path as f_path, f.status as f_status, f.code as f_code, f.message as f_message, f.at::text as f_at
    from (${sql.join(branches, sql` union all `)}) as m(branch, kind, id, matched_by, partner_id, environment, label, subscription_id, failure_id)
    join partners p on p.id = m.partner_id
    left join request_failures f on f.request_id = m.failure_id
    order by m.branch, m.id desc`;
}
