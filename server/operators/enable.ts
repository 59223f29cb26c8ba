import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { operatorIdInput } from './disable';
import type { OperatorSummary } from './list';
import { lockOperator } from './lock';

/**
 * Lets a disabled operator sign in again, with the password they had (their old sessions stay ended).
 * Audited; enabling an enabled operator changes nothing.
 */
export async function enableOperator({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof operatorIdInput>;
}): Promise<OperatorSummary & { changed: boolean }> {
  const { id } = parseOrThrow(operatorIdInput, input);
  return withTransaction(ctx, async (tx) => {
    const row = await lockOperator(tx, id);
    if (!row.disabledAt) return { ...row, changed: false };
    await tx.db.update(operators).set({ disabledAt: null }).where(eq(operators.id, id));
    await recordAudit(tx, {
      action: 'operator.enable',
      targetType: 'operator',
      targetId: id,
      before: { disabled_at: row.disabledAt },
      after: { disabled_at: null },
    });
    return { ...row, disabledAt: null, changed: true };
  });
}
