import { asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
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
  /** The headers as sent, rebuilt from the attempt's time; signature values masked. */
  requestHeaders: Record<string, string>;
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
  const rows = await ctx.read
    .select({
      id: webhookAttempts.id,
      deliveryId: webhookAttempts.deliveryId,
      number: webhookAttempts.attempt,
      trigger: webhookAttempts.trigger,
      requestedBy: webhookAttempts.requestedBy,
      apiVersion: webhookAttempts.apiVersion,
      startedAt: webhookAttempts.startedAt,
      durationMs: webhookAttempts.durationMs,
      responseStatus: webhookAttempts.responseStatus,
      responseHeaders: webhookAttempts.responseHeaders,
      // Cut in the database: a page of 50 deliveries would otherwise carry up to 16 KiB per attempt.
      responseBodyExcerpt: sql<string | null>`left(${webhookAttempts.responseBody}, ${BODY_EXCERPT_CHARS})`,
      errorKind: webhookAttempts.errorKind,
      errorMessage: webhookAttempts.errorMessage,
      resolvedAddress: webhookAttempts.resolvedAddress,
      eventId: webhookDeliveries.eventId,
      eventType: webhookDeliveries.eventType,
    })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .where(
      input.latest === undefined ? inArray(webhookAttempts.deliveryId, [...input.deliveryIds]) : latestOf(input.deliveryIds, input.latest),
    )
    .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.startedAt));
  for (const { eventId, eventType, ...row } of rows) {
    const attempt: AttemptRow = {
      ...row,
      trigger: row.trigger as AttemptRow['trigger'],
      requestHeaders: sentHeaders(eventId, eventType, row.apiVersion, row.startedAt),
    };
    byDelivery.set(row.deliveryId, [...(byDelivery.get(row.deliveryId) ?? []), attempt]);
  }
  return byDelivery;
}

function latestOf(deliveryIds: readonly string[], latest: number): SQL {
  const ids = sql.join(
    deliveryIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return sql`${webhookAttempts.id} in (
    select l.id from unnest(array[${ids}]::text[]) as d(id)
    cross join lateral (
      select a.id from webhook_attempts a where a.delivery_id = d.id order by a.attempt desc, a.started_at desc limit ${latest}
    ) l)`;
}

/**
 * The headers an attempt carried, rebuilt with the function that built them (so they cannot drift
 * from what is sent): `t` is the attempt's second, and each signature is masked, since how many were
 * sent (one, or two during a rotation) is not kept.
 */
function sentHeaders(eventId: string, eventType: string, apiVersion: string, startedAt: Date): Record<string, string> {
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const headers = deliveryHeaders({ secrets: [MASK], eventId, eventType, apiVersion, timestamp, body: '', userAgent: USER_AGENT });
  return { ...headers, 'x-service-signature': `t=${timestamp},v1=${MASK}`, 'webhook-signature': `v1,${MASK}` };
}
