import { sql } from 'drizzle-orm';
import type { Ctx } from '../context';
import { idFloor } from '../ids';

/**
 * Deletes failure notices older than EVENT_RETENTION_DAYS, like the events they announced, except
 * those of a streak still current: a subscription disabled months ago keeps its streak (failing_since)
 * until it is enabled again, and without its `disabled` row it would be announced again.
 */
export async function purgeOldNotices({ ctx }: { ctx: Ctx }): Promise<number> {
  const cutoff = new Date(Date.now() - ctx.env.EVENT_RETENTION_DAYS * 86_400_000);
  const deleted = await ctx.db.execute<{ id: string }>(sql`
    delete from webhook_notices n where n.id < ${idFloor(cutoff)}
      and not exists (select 1 from webhook_subscriptions s
        where s.id = n.subscription_id and (s.failing_since = n.streak_since or s.recovered_from = n.streak_since))
    returning n.id`);
  return deleted.length;
}
