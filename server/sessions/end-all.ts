import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { operatorSessions } from '@/db/schema';
import type { Ctx } from '../context';

/**
 * Ends every live session of an operator (but `except`, the one asking), in the caller's transaction;
 * each is refused on its next request, on every process. Returns how many ended.
 */
export async function endSessionsOf(tx: Ctx, operatorId: string, except?: string): Promise<number> {
  const ended = await tx.db
    .update(operatorSessions)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(operatorSessions.operatorId, operatorId),
        isNull(operatorSessions.revokedAt),
        gt(operatorSessions.expiresAt, sql`now()`),
        except ? ne(operatorSessions.id, except) : undefined,
      ),
    )
    .returning({ id: operatorSessions.id });
  return ended.length;
}
