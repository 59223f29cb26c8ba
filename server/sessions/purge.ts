import { lt, or, sql } from 'drizzle-orm';
import { operatorSessions, signInAttempts } from '@/db/schema';
import type { Ctx } from '../context';

/**
 * Deletes sign-in attempts older than a day (the throttle looks back 15 minutes) and sessions that
 * ended more than 30 days ago (kept that long so an admin can still see who was signed in when).
 */
export async function purgeOldSessions({ ctx }: { ctx: Ctx }): Promise<{ attempts: number; sessions: number }> {
  const attempts = await ctx.db
    .delete(signInAttempts)
    .where(lt(signInAttempts.at, sql`now() - interval '1 day'`))
    .returning({ id: signInAttempts.id });
  const sessions = await ctx.db
    .delete(operatorSessions)
    .where(
      or(lt(operatorSessions.expiresAt, sql`now() - interval '30 days'`), lt(operatorSessions.revokedAt, sql`now() - interval '30 days'`)),
    )
    .returning({ id: operatorSessions.id });
  return { attempts: attempts.length, sessions: sessions.length };
}
