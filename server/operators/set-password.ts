import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { NotFoundError } from '../errors';
import { endSessionsOf } from '../sessions/end-all';
import { parseOrThrow } from '../validation';
import { generatePassword, hashPassword } from './password';
import { operatorPassword } from './schemas';

export const setOperatorPasswordInput = z.strictObject({
  id: z.string().min(1).max(100),
  /** Absent: one is generated and returned once. */
  password: operatorPassword.optional(),
});

/**
 * Gives an operator a new password without the old one (the admin CLI: someone forgot theirs, or an
 * account that may be known to someone else). In one transaction: the new scrypt hash, every session of
 * theirs ended, an audit entry without the password. A generated password is returned this once.
 */
export async function setOperatorPassword({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof setOperatorPasswordInput>;
}): Promise<{ id: string; email: string; sessionsEnded: number; generatedPassword?: string }> {
  const { id, password } = parseOrThrow(setOperatorPasswordInput, input);
  const generatedPassword = password === undefined ? generatePassword() : undefined;
  const passwordHash = await hashPassword(password ?? generatedPassword!);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.update(operators).set({ passwordHash }).where(eq(operators.id, id)).returning({ email: operators.email });
    if (!row) throw new NotFoundError('operator', id);
    const sessionsEnded = await endSessionsOf(tx, id);
    await recordAudit(tx, {
      action: 'operator.password.set',
      targetType: 'operator',
      targetId: id,
      after: { sessions_ended: sessionsEnded },
    });
    return { id, email: row.email, sessionsEnded, ...(generatedPassword ? { generatedPassword } : {}) };
  });
}
