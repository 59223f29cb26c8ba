import { desc, lt } from 'drizzle-orm';
import { operators } from '@/db/schema';
import type { Ctx, OperatorRole } from '../context';

export interface OperatorSummary {
  id: string;
  email: string;
  role: OperatorRole;
  createdAt: Date;
  /** Set while the operator is disabled (no sign-in, no session). */
  disabledAt: Date | null;
}

/** The columns an operator is shown by: never the password hash. */
export const operatorSummaryColumns = {
  id: operators.id,
  email: operators.email,
  role: operators.role,
  createdAt: operators.createdAt,
  disabledAt: operators.disabledAt,
};

/** Operators, newest first (ids sort by creation), `first` plus one to tell whether more follow. No password hash leaves here. */
export async function listOperators({ ctx, input }: { ctx: Ctx; input: { first: number; after?: string } }): Promise<OperatorSummary[]> {
  return ctx.db
    .select(operatorSummaryColumns)
    .from(operators)
    .where(input.after ? lt(operators.id, input.after) : undefined)
    .orderBy(desc(operators.id))
    .limit(input.first + 1);
}
