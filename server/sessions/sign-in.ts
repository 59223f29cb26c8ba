import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { operators, operatorSessions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { contextFor, withTransaction, type Ctx, type OperatorRole } from '../context';
import { AppError } from '../errors';
import { newId } from '../ids';
import { UNKNOWN_OPERATOR_HASH, verifyPassword } from '../operators/password';
import { parseOrThrow } from '../validation';
import { throttledGuess } from './attempts';
import { newSessionToken, sessionTokenHash } from './token';

export const signInInput = z.strictObject({
  email: z
    .string()
    .trim()
    .max(254)
    .transform((e) => e.toLowerCase()),
  password: z.string().max(200),
});

export interface SignedIn {
  /** For the cookie only: never stored, never logged. */
  token: string;
  sessionId: string;
  expiresAt: Date;
  operator: { id: string; email: string; role: OperatorRole };
}

// One answer for every refusal: which part was wrong is not told.
const invalidCredentials = () => new AppError('unauthenticated', 'invalid_credentials', 'Wrong e-mail or password.');

/**
 * Signs an operator in: one answer for an unknown e-mail, a wrong password and a disabled operator (and
 * the same scrypt cost for each), and a 429 once the account from this address, the address, or the
 * account from everywhere has failed too often in 15 minutes (server/sessions/attempts.ts: counted in
 * the database and reserved before the check, so the bound holds under any parallelism, across processes).
 */
export async function signIn({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof signInInput> & { address: string; userAgent?: string };
}): Promise<SignedIn> {
  const { email, password } = parseOrThrow(signInInput, { email: input.email, password: input.password });
  // Looked up once the guess is reserved: the rest of a refused burst costs no query.
  const found: { operator?: typeof operators.$inferSelect } = {};
  const ok = await throttledGuess(ctx, { email, address: input.address }, async () => {
    [found.operator] = await ctx.db.select().from(operators).where(eq(operators.email, email));
    const matches = await verifyPassword(password, found.operator?.passwordHash ?? UNKNOWN_OPERATOR_HASH);
    // A disabled operator's right password gets the same answer as a wrong one, after the same scrypt.
    return found.operator !== undefined && found.operator.disabledAt === null && matches;
  });
  const operator = found.operator;
  if (!ok || !operator) throw invalidCredentials();

  const actor = { kind: 'operator' as const, operatorId: operator.id, email: operator.email, role: operator.role };
  return withTransaction(contextFor(ctx, actor, ctx.requestId), async (tx) => {
    // Disabled between the check and here: no session. The row lock orders this after a disable, whose
    // sessions sweep would otherwise miss a session inserted after it.
    const [still] = await tx.db
      .select({ disabledAt: operators.disabledAt })
      .from(operators)
      .where(eq(operators.id, operator.id))
      .for('share');
    if (!still || still.disabledAt !== null) throw invalidCredentials();
    const token = newSessionToken();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ctx.env.OPERATOR_SESSION_HOURS * 3_600_000);
    const sessionId = newId();
    await tx.db.insert(operatorSessions).values({
      id: sessionId,
      operatorId: operator.id,
      tokenHash: sessionTokenHash(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      address: input.address,
      userAgent: input.userAgent?.slice(0, 300) ?? null,
    });
    await recordAudit(tx, { action: 'operator.sign_in', targetType: 'session', targetId: sessionId, after: { address: input.address } });
    return { token, sessionId, expiresAt, operator: { id: operator.id, email: operator.email, role: operator.role } };
  });
}
