import { and, desc, eq, gt, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { operators, operatorSessions } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';

export interface SessionSummary {
  id: string;
  operatorId: string;
  operatorEmail: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  address: string | null;
  userAgent: string | null;
  current: boolean;
}

/**
 * Live sessions, newest first: the operator's own, or (admin) everyone's or one operator's. No token
 * or hash leaves this function.
 */
export async function listSessions({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { operatorId?: string; currentSessionId?: string; first: number; after?: string };
}): Promise<{ rows: SessionSummary[]; hasMore: boolean }> {
  const whose = ctx.actor.role === 'admin' ? input.operatorId : ctx.actor.operatorId;
  const where: SQL[] = [isNull(operatorSessions.revokedAt), gt(operatorSessions.expiresAt, sql`now()`)];
  if (whose) where.push(eq(operatorSessions.operatorId, whose));
  if (input.after) where.push(lt(operatorSessions.id, input.after));
  const rows = await ctx.db
    .select({
      id: operatorSessions.id,
      operatorId: operatorSessions.operatorId,
      operatorEmail: operators.email,
      createdAt: operatorSessions.createdAt,
      lastSeenAt: operatorSessions.lastSeenAt,
      expiresAt: operatorSessions.expiresAt,
      address: operatorSessions.address,
      userAgent: operatorSessions.userAgent,
    })
    .from(operatorSessions)
    .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
    .where(and(...where))
    .orderBy(desc(operatorSessions.id))
    .limit(input.first + 1);
  return {
    rows: rows.slice(0, input.first).map((r) => ({ ...r, current: r.id === input.currentSessionId })),
    hasMore: rows.length > input.first,
  };
}
