import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';

/** A worker that has not beaten for this long is taken for dead. */
export const HEARTBEAT_STALE_SECONDS = 15;

/** Marks this worker alive, forgets dead ones, and answers how many workers are alive (this one included). */
export async function beat(ctx: Ctx, workerId: string): Promise<number> {
  const [row] = await ctx.db.execute<{ live: number }>(sql`
    with me as (
      insert into worker_heartbeats (id, beat_at) values (${workerId}, now())
      on conflict (id) do update set beat_at = now()
    ), gone as (
      delete from worker_heartbeats where beat_at < now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS})
    )
    select 1 + count(*)::int as live from worker_heartbeats
    where id <> ${workerId} and beat_at >= now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS})`);
  return row?.live ?? 1;
}

/** A worker stopping on purpose leaves at once, so the others take over its share without waiting. */
export async function leave(ctx: Ctx, workerId: string): Promise<void> {
  await ctx.db.execute(sql`delete from worker_heartbeats where id = ${workerId}`);
}
