import { sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { USER_AGENT } from '../delivery/send-attempt';
import { deliveryHeaders } from '../delivery/signing';

/** What the console shows of a response body: enough to recognise an error page. */
export const BODY_EXCERPT_CHARS = 2048;
const MASK = '********';

export interface AttemptRow {
  id: string;
  deliveryId: string;
  number: number;
  trigger: 'scheduled' | 'manual' | 'replay';
  requestedBy: string | null;
  /** The version its body was rendered in. */
  apiVersion: string;
  startedAt: Date;
  durationMs: number;
  /** The event it carried: with its time and version, what rebuilds its request's headers (sentHeaders). */
  eventId: string;
  eventType: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBodyExcerpt: string | null;
  errorKind: string | null;
  errorMessage: string | null;
  resolvedAddress: string | null;
}

/**
 * The attempts of several deliveries in one statement (a page of deliveries asks once), oldest first per delivery;
 * with `latest`, only each delivery's latest that many (webhook_attempts_delivery_idx, read backwards): a partner's
 * redeliveries add attempts to one delivery without end, and the order timeline shows a few of each.
 */
export async function attemptsOf({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { deliveryIds: readonly string[]; latest?: number };
}): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (input.deliveryIds.length === 0) return byDelivery;
  const ids = sql.join(
    input.deliveryIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const latest = input.latest === undefined ? sql`` : sql`order by a.attempt desc, a.started_at desc limit ${input.latest}`;
  // Delivery by delivery: its row (for the headers' event) and its attempts, each by index in every partition. The
  // same rows as a join of `delivery_id in (...)` with webhook_deliveries by id, which the planner costed at over
  // 11,000 (a page's 50 ids against eight partitions of each table) and ran with two parallel workers: 1 ms of
  // work in 34 ms, and ~29 ms of the database's CPU per deliveries page (issue 29, 10,000,000 attempts).
  const rows = await ctx.read.execute<{
    id: string;
    delivery_id: string;
    attempt: number;
    trigger: string;
    requested_by: string | null;
    api_version: string;
    started_at: string | Date;
    duration_ms: number;
    response_status: number | null;
    response_headers: Record<string, string> | string | null;
    response_body_excerpt: string | null;
    error_kind: string | null;
    error_message: string | null;
    resolved_address: string | null;
    event_id: string;
    event_type: string;
  }>(sql`
    select a.id, a.delivery_id, a.attempt, a.trigger, a.requested_by, a.api_version, a.started_at, a.duration_ms,
      a.response_status, a.response_headers, left(a.response_body, ${BODY_EXCERPT_CHARS}) as response_body_excerpt,
      a.error_kind, a.error_message, a.resolved_address, d.event_id, d.event_type
    from unnest(array[${ids}]::text[]) as x(id)
    cross join lateral (select d.event_id, d.event_type from ${webhookDeliveries} d where d.id = x.id limit 1) d
    cross join lateral (select * from ${webhookAttempts} a where a.delivery_id = x.id ${latest}) a
    order by a.attempt, a.started_at`);
  for (const r of rows) {
    const attempt: AttemptRow = {
      id: r.id,
      deliveryId: r.delivery_id,
      number: r.attempt,
      trigger: r.trigger as AttemptRow['trigger'],
      requestedBy: r.requested_by,
      apiVersion: r.api_version,
      startedAt: r.started_at instanceof Date ? r.started_at : new Date(r.started_at),
      durationMs: r.duration_ms,
      responseStatus: r.response_status,
      responseHeaders:
        typeof r.response_headers === 'string' ? (JSON.parse(r.response_headers) as Record<string, string>) : r.response_headers,
      responseBodyExcerpt: r.response_body_excerpt,
      errorKind: r.error_kind,
      errorMessage: r.error_message,
      resolvedAddress: r.resolved_address,
      eventId: r.event_id,
      eventType: r.event_type,
    };
    byDelivery.set(r.delivery_id, [...(byDelivery.get(r.delivery_id) ?? []), attempt]);
  }
  return byDelivery;
}

/**
 * The headers an attempt carried, rebuilt with the function that built them (so they cannot drift
 * from what is sent): `t` is the attempt's second, and each signature is masked, since how many were
 * sent (one, or two during a rotation) is not kept. Two HMACs each, so made only for the attempts whose
 * headers are shown: made for every attempt read, they took ~2 ms of a deliveries page's ~30 ms of CPU,
 * on a page that shows none (`npm run bench -- operator-queries --profile`).
 */
export function sentHeaders({ eventId, eventType, apiVersion, startedAt }: AttemptRow): Record<string, string> {
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const headers = deliveryHeaders({ secrets: [MASK], eventId, eventType, apiVersion, timestamp, body: '', userAgent: USER_AGENT });
  return { ...headers, 'x-service-signature': `t=${timestamp},v1=${MASK}`, 'webhook-signature': `v1,${MASK}` };
}
