import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { lockAdmins, refuseWithoutActiveAdmin } from './active-admins';
import type { OperatorSummary } from './list';
import { lockOperator } from './lock';

export const changeOperatorRoleInput = z.strictObject({
  id: z.string().min(1).max(100),
  role: z.enum(['admin', 'support']),
});

export { LastAdminError } from './active-admins';

/**
 * Gives an operator another role. Sessions read the role from the operators table on every request,
 * so it applies to the operator's next request, on every process. Refused when no active (not
 * disabled) admin would remain.
 */
export async function changeOperatorRole({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof changeOperatorRoleInput>;
}): Promise<OperatorSummary & { changed: boolean }> {
  const { id, role } = parseOrThrow(changeOperatorRoleInput, input);
  return withTransaction(ctx, async (tx) => {
    await lockAdmins(tx);
    const row = await lockOperator(tx, id);
    if (row.role === role) return { ...row, changed: false };
    await tx.db.update(operators).set({ role }).where(eq(operators.id, id));
    await recordAudit(tx, {
      action: 'operator.role.change',
      targetType: 'operator',
      targetId: id,
      before: { role: row.role },
      after: { role },
    });
    await refuseWithoutActiveAdmin(tx);
    return { ...row, role, changed: true };
  });
}
