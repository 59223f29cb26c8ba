import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorActor } from '../context';
import { ConflictError, ForbiddenError, ValidationError } from '../errors';
import { throttledGuess } from '../sessions/attempts';
import { endSessionsOf } from '../sessions/end-all';
import { parseOrThrow } from '../validation';
import { hashPassword, verifyPassword } from './password';
import { changePasswordInput } from './schemas';

/**
 * The signed-in operator changes their own password. The current password is required, and a wrong
 * one counts as a failed sign-in of the account (the pair key is the session, so a stolen session gets
 * SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS guesses, no more). In one transaction: the new scrypt hash, every
 * other session of theirs ended (the one asking, `sessionId`, stays), and an audit entry without the
 * password. Neither password is logged or returned.
 */
export async function changeOwnPassword({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: z.input<typeof changePasswordInput> & { sessionId: string };
}): Promise<{ sessionsEnded: number }> {
  const { currentPassword, newPassword } = parseOrThrow(changePasswordInput, {
    currentPassword: input.currentPassword,
    newPassword: input.newPassword,
  });
  const [operator] = await ctx.db
    .select({ id: operators.id, email: operators.email, passwordHash: operators.passwordHash })
    .from(operators)
    .where(eq(operators.id, ctx.actor.operatorId));
  if (!operator) throw new ForbiddenError('forbidden', 'Only a signed-in operator has a password of their own to change.');
  const matches = await throttledGuess(ctx, { email: operator.email, address: `session:${input.sessionId}` }, () =>
    verifyPassword(currentPassword, operator.passwordHash),
  );
  if (!matches) {
    throw new ValidationError([{ param: 'currentPassword', code: 'current_password_wrong', message: 'The current password is wrong.' }]);
  }
  const gates = ctx.signInGates;
  const passwordHash = await (gates ? gates.check.run(() => hashPassword(newPassword)) : hashPassword(newPassword));
  return withTransaction(ctx, async (tx) => {
    // Only over the hash just checked: of two changes at once, the second is refused, not silently lost.
    const [changed] = await tx.db
      .update(operators)
      .set({ passwordHash })
      .where(and(eq(operators.id, operator.id), eq(operators.passwordHash, operator.passwordHash)))
      .returning({ id: operators.id });
    if (!changed) throw new ConflictError('password_changed_meanwhile', 'The password was changed meanwhile: sign in again.');
    const sessionsEnded = await endSessionsOf(tx, operator.id, input.sessionId);
    await recordAudit(tx, {
      action: 'operator.password.change',
      targetType: 'operator',
      targetId: operator.id,
      after: { sessions_ended: sessionsEnded },
    });
    return { sessionsEnded };
  });
}
