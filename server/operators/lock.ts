import { eq } from 'drizzle-orm';
import { operators } from '@/db/schema';
import type { Ctx } from '../context';
import { NotFoundError } from '../errors';
import { operatorSummaryColumns, type OperatorSummary } from './list';

/** The operator's row, locked for the rest of the caller's transaction (a change decides on what it read); 404 when unknown. */
export async function lockOperator(tx: Ctx, id: string): Promise<OperatorSummary> {
  const [row] = await tx.db.select(operatorSummaryColumns).from(operators).where(eq(operators.id, id)).for('update');
  if (!row) throw new NotFoundError('operator', id);
  return row;
}
