import { and, eq, lt, sql } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import type { Ctx } from '../context';

/**
 * Deletes requests whose contact never confirmed, a day after their link expired (until then the link
 * still answers "expired" rather than "unknown"). Nobody vouched for them: they are a stranger's words
 * about a third party's address, and were kept forever before. Their audit entries stay.
 */
export async function purgeUnconfirmedAccessRequests({ ctx }: { ctx: Ctx }): Promise<number> {
  const deleted = await ctx.db
    .delete(accessRequests)
    .where(and(eq(accessRequests.status, 'unconfirmed'), lt(accessRequests.confirmExpiresAt, sql`now() - interval '1 day'`)))
    .returning({ id: accessRequests.id });
  return deleted.length;
}
