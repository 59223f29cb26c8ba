import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { endSessionsOf } from '../sessions/end-all';
import { parseOrThrow } from '../validation';
import { lockAdmins, refuseWithoutActiveAdmin } from './active-admins';
import type { OperatorSummary } from './list';
import { lockOperator } from './lock';

export const operatorIdInput = z.strictObject({ id: z.string().min(1).max(100) });

/**
 * Disables an operator (someone who left): in one transaction the operator is marked disabled, every
 * live session of theirs ends (refused on its next request, on every process; authenticateSession
 * also refuses any session of a disabled operator), and the audit log records it. Sign-in is refused
 * with the same 401 as a wrong password. The row stays, so the audit log still names them. Refused
 * (last_admin) when no active admin would remain. Disabling a disabled operator changes nothing.
 */
export async function disableOperator({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof operatorIdInput>;
}): Promise<OperatorSummary & { changed: boolean; sessionsEnded: number }> {
  const { id } = parseOrThrow(operatorIdInput, input);
  return withTransaction(ctx, async (tx) => {
    await lockAdmins(tx);
    const row = await lockOperator(tx, id);
    if (row.disabledAt) return { ...row, changed: false, sessionsEnded: 0 };
    const [updated] = await tx.db
      .update(operators)
      .set({ disabledAt: new Date() })
      .where(eq(operators.id, id))
      .returning({ disabledAt: operators.disabledAt });
    const sessionsEnded = await endSessionsOf(tx, id);
    await recordAudit(tx, {
      action: 'operator.disable',
      targetType: 'operator',
      targetId: id,
      before: { disabled_at: null },
      after: { disabled_at: updated!.disabledAt, sessions_ended: sessionsEnded },
    });
    await refuseWithoutActiveAdmin(tx);
    return { ...row, disabledAt: updated!.disabledAt, changed: true, sessionsEnded };
  });
}
