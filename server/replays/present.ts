import { sql } from 'drizzle-orm';
import type { webhookReplays } from '@/db/schema';
import { livemode, type Ctx } from '../context';
import { unixSeconds } from '../time';
import type { ReplayResource } from './schemas';
import { anyOf } from '@/db/lists';

export type ReplayRow = typeof webhookReplays.$inferSelect;

/** Replays as the API shows them, with their deliveries' outcomes counted now (they move on after the replay completes). */
export async function presentReplays(ctx: Ctx, rows: ReplayRow[]): Promise<ReplayResource[]> {
  const counts = new Map<string, { delivered: number; failed: number }>();
  if (rows.length > 0) {
    const outcomes = await ctx.db.execute<{ replay_id: string; status: string; n: number }>(sql`
      select replay_id, status, count(*)::int as n from webhook_deliveries
      where replay_id = ${anyOf(rows.map((r) => r.id))} and status in ('succeeded', 'failed')
      group by replay_id, status`);
    for (const o of outcomes) {
      const c = counts.get(o.replay_id) ?? { delivered: 0, failed: 0 };
      if (o.status === 'succeeded') c.delivered = o.n;
      else c.failed = o.n;
      counts.set(o.replay_id, c);
    }
  }
  return rows.map((row) => ({
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
    events_delivered: counts.get(row.id)?.delivered ?? 0,
    events_failed: counts.get(row.id)?.failed ?? 0,
    created: unixSeconds(row.createdAt),
    started_at: row.startedAt ? unixSeconds(row.startedAt) : null,
    completed_at: row.completedAt ? unixSeconds(row.completedAt) : null,
  }));
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
