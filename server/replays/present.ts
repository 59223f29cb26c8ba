import type { webhookReplays } from '@/db/schema';
import { livemode, type Ctx } from '../context';
import { unixSeconds } from '../time';
import type { ReplayResource } from './schemas';
import { NO_DELIVERIES, replayDeliveries, replayPhase, type ReplayDeliveries } from './progress';

export type ReplayRow = typeof webhookReplays.$inferSelect;

/** Replays as the API shows them, with their deliveries' outcomes counted now (they move on after the replay completes). */
export async function presentReplays(ctx: Ctx, rows: ReplayRow[]): Promise<ReplayResource[]> {
  const counts = await replayDeliveries(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((row) => presentWith(row, counts.get(row.id) ?? NO_DELIVERIES));
}

/** One replay with its deliveries' counts. */
export function presentWith(row: ReplayRow, d: ReplayDeliveries): ReplayResource {
  return {
    id: row.id,
    object: 'replay',
    livemode: livemode(row.environment),
    webhook_id: row.subscriptionId,
    status: row.status,
    since: unixSeconds(row.since),
    until: unixSeconds(row.until),
    event_types: row.eventTypes,
    only: row.only,
    events_matched: row.eventsMatched,
    events_enqueued: row.eventsEnqueued,
    events_delivered: d.delivered,
    events_failed: d.failed,
    events_skipped: d.skipped,
    events_pending: d.pending,
    settled: replayPhase(row.status, d) === 'settled',
    created: unixSeconds(row.createdAt),
    started_at: row.startedAt ? unixSeconds(row.startedAt) : null,
    completed_at: row.completedAt ? unixSeconds(row.completedAt) : null,
  };
}

export async function presentReplay(ctx: Ctx, row: ReplayRow): Promise<ReplayResource> {
  const [resource] = await presentReplays(ctx, [row]);
  return resource!;
}

/** The window a replay row selects (its `until` is a whole second, included). */
export function windowOf(row: ReplayRow, types: string[]) {
  return {
    partnerId: row.partnerId,
    environment: row.environment,
    subscriptionId: row.subscriptionId,
    since: row.since,
    until: new Date(row.until.getTime() + 1000),
    types,
    only: row.only,
  };
}

/** Who asked for a replay, as attempts show it (requesterOf's form): "partner:<client id>" or "operator:<e-mail or id>". */
export function requesterOfReplay(requestedBy: Record<string, string>): string {
  if (requestedBy.kind === 'partner') return `partner:${requestedBy.client_id ?? requestedBy.credential_id}`;
  if (requestedBy.kind === 'operator') return `operator:${requestedBy.email ?? requestedBy.operator_id}`;
  return `${requestedBy.kind ?? 'unknown'}`;
}
