import { newId } from '../ids';
import { rawSqlOf } from '@/db/client';
import type { EventEnvelope } from '@/db/schema';
import { livemode, type Ctx, type Environment } from '../context';
import { enqueue } from '../outbox/enqueue';
import { unixSeconds } from '../time';
import { FAN_OUT } from '../outbox/queues';
import type { StoredEvent } from './present';

export interface NewEvent {
  type: string;
  partnerId: string;
  environment: Environment;
  /** The resource as the partner API returns it. */
  object: Record<string, unknown> & { id: string; status: string };
  /** When it happened, to the millisecond (the envelope shows the whole second): fan-out orders it against subscriptions. */
  at?: Date;
  /** The fields of `object` this event changed, with their values before it (absent for a creation). */
  previousAttributes?: Record<string, unknown>;
}

/**
 * Writes an event (envelope exactly as spec part 2, with the resource whole, and the attributes it
 * changed) and its fan-out job in the caller's transaction: a committed change always produces its
 * webhooks, a rolled-back one never does. Answers the event as stored; presentEvent shows it.
 */
export async function emitEvent(ctx: Ctx, event: NewEvent): Promise<StoredEvent> {
  if (!ctx.inTransaction) throw new Error('emitEvent must run inside the transaction of the change it reports');
  const at = event.at ?? new Date();
  const envelope: EventEnvelope = {
    id: newId(),
    object: 'event',
    created: unixSeconds(at),
    livemode: livemode(event.environment),
    type: event.type,
    data: { object: event.object },
  };
  // Together, in one round trip: the job names the event, but nothing checks that before the commit.
  // Every order move writes one: a prepared statement written out, not built by Drizzle each time.
  const previous = event.previousAttributes ?? null;
  const sql = rawSqlOf(ctx.db);
  await Promise.all([
    sql`
      insert into events (id, partner_id, environment, type, object_id, envelope, previous_attributes, created_at)
      values (${envelope.id}, ${event.partnerId}, ${event.environment}, ${event.type}, ${event.object.id},
        ${JSON.stringify(envelope)}::jsonb, ${previous === null ? null : JSON.stringify(previous)}::jsonb, ${at.toISOString()}::timestamptz)`,
    enqueue(ctx, FAN_OUT, { event_id: envelope.id }),
  ]);
  return { envelope, previous_attributes: previous };
}
