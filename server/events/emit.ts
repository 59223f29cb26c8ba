import { newId } from '../ids';
import { sql } from 'drizzle-orm';
import { events, type EventEnvelope } from '@/db/schema';
import { bossExecutor } from '@/jobs/transactional';
import { livemode, type Ctx, type Environment } from '../context';
import { runtime } from '../runtime';

export const FAN_OUT_QUEUE = 'webhooks.fanout';
/** NOTIFY channel whose payload names a queue that just got jobs. */
export const JOBS_CHANNEL = 'pdp_jobs';

export interface NewEvent {
  type: string;
  partnerId: string;
  environment: Environment;
  /** The resource as the partner API returns it. */
  object: Record<string, unknown> & { id: string; status: string };
  at?: Date;
}

/**
 * Writes an event (envelope exactly as spec part 2) and its fan-out job in the caller's
 * transaction: a committed change always produces its webhooks, a rolled-back one never does.
 */
export async function emitEvent(ctx: Ctx, event: NewEvent): Promise<EventEnvelope> {
  if (!ctx.inTransaction) throw new Error('emitEvent must run inside the transaction of the change it reports');
  const at = event.at ?? new Date();
  const envelope: EventEnvelope = {
    id: newId(),
    object: 'event',
    created: Math.floor(at.getTime() / 1000),
    livemode: livemode(event.environment),
    type: event.type,
    data: { object: event.object },
  };
  await ctx.db.insert(events).values({
    id: envelope.id,
    partnerId: event.partnerId,
    environment: event.environment,
    type: event.type,
    objectId: event.object.id,
    envelope,
    createdAt: at,
  });
  const boss = runtime().boss;
  if (!boss) throw new Error('the job queue is not started in this process');
  const jobId = await boss.send(FAN_OUT_QUEUE, { event_id: envelope.id }, { db: bossExecutor(ctx.db) });
  if (!jobId) throw new Error(`could not enqueue ${FAN_OUT_QUEUE} for ${envelope.id}`);
  // Sent at commit: wakes idle fan-out workers in every process instead of waiting for their next poll.
  await ctx.db.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${FAN_OUT_QUEUE})`);
  return envelope;
}
