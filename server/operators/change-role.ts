import { count, eq } from 'drizzle-orm';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError, NotFoundError } from '../errors';
import { parseOrThrow } from '../validation';
import type { OperatorSummary } from './list';

export const changeOperatorRoleInput = z.strictObject({
  id: z.string().min(1).max(100),
  role: z.enum(['admin', 'support']),
});

export class LastAdminError extends ConflictError {
  constructor() {
    super('last_admin', 'This would leave no admin: promote another operator to admin first.');
  }
}

/**
 * Gives an operator another role. Sessions read the role from the operators table on every request,
 * so it applies to the operator's next request, on every process. Refused when no admin would remain.
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
    // Every admin row locked first: two admins demoting each other at once run one after the other,
    // and the second sees that it would remove the last admin.
    await tx.db.select({ id: operators.id }).from(operators).where(eq(operators.role, 'admin')).for('update');
    const [row] = await tx.db
      .select({ id: operators.id, email: operators.email, role: operators.role, createdAt: operators.createdAt })
      .from(operators)
      .where(eq(operators.id, id))
      .for('update');
    if (!row) throw new NotFoundError('operator', id);
    if (row.role === role) return { ...row, changed: false };
    await tx.db.update(operators).set({ role }).where(eq(operators.id, id));
    await recordAudit(tx, {
      action: 'operator.role.change',
      targetType: 'operator',
      targetId: id,
      before: { role: row.role },
      after: { role },
    });
    // Checked on the state after the change, in the same transaction: a refusal rolls back the update
    // and its audit entry together.
    const [{ admins } = { admins: 0 }] = await tx.db.select({ admins: count() }).from(operators).where(eq(operators.role, 'admin'));
    if (admins === 0) throw new LastAdminError();
    return { ...row, role, changed: true };
  });
}
