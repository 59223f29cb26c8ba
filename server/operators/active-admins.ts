import { and, count, eq, isNull } from 'drizzle-orm';
import { operators } from '@/db/schema';
import type { Ctx } from '../context';
import { ConflictError } from '../errors';

export class LastAdminError extends ConflictError {
  constructor() {
    super('last_admin', 'This would leave no active admin: promote or enable another admin first.');
  }
}

/**
 * Locks every admin row, so that two admins demoting or disabling each other at once run one after
 * the other and the second sees that it would remove the last active admin. Call first in the
 * transaction, then change, then refuseWithoutActiveAdmin.
 */
export async function lockAdmins(tx: Ctx): Promise<void> {
  await tx.db.select({ id: operators.id }).from(operators).where(eq(operators.role, 'admin')).for('update');
}

/**
 * The rule that someone can always manage operators: at least one admin that is not disabled. Checked
 * on the state after the change, in the same transaction, so a refusal rolls back the change and its
 * audit entry together.
 */
export async function refuseWithoutActiveAdmin(tx: Ctx): Promise<void> {
  const [{ admins } = { admins: 0 }] = await tx.db
    .select({ admins: count() })
    .from(operators)
    .where(and(eq(operators.role, 'admin'), isNull(operators.disabledAt)));
  if (admins === 0) throw new LastAdminError();
}
