import { and, eq, isNull } from 'drizzle-orm';
import { operatorSessions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorActor } from '../context';
import { ForbiddenError, NotFoundError } from '../errors';

/**
 * Ends a session: the operator's own (sign-out, or a device they no longer trust), or anyone's for
 * an admin. A revoked session is refused on its next request, on every process.
 */
export async function revokeSession({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { sessionId: string } }) {
  return withTransaction(ctx, async (tx) => {
    const [session] = await tx.db.select().from(operatorSessions).where(eq(operatorSessions.id, input.sessionId)).for('update');
    if (!session) throw new NotFoundError('session', input.sessionId);
    if (session.operatorId !== ctx.actor.operatorId && ctx.actor.role !== 'admin') {
      throw new ForbiddenError('forbidden', "Only an admin can end another operator's session.");
    }
    const [revoked] = await tx.db
      .update(operatorSessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(operatorSessions.id, session.id), isNull(operatorSessions.revokedAt)))
      .returning({ id: operatorSessions.id });
    if (revoked) {
      await recordAudit(tx, {
        action: session.operatorId === ctx.actor.operatorId ? 'operator.sign_out' : 'session.revoke',
        targetType: 'session',
        targetId: session.id,
        before: { operator_id: session.operatorId },
      });
    }
    return { id: session.id, revoked: true };
  });
}
