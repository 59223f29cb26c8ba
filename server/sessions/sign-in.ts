import { and, count, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { operators, operatorSessions, signInAttempts } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { contextFor, withTransaction, type Ctx, type OperatorRole } from '../context';
import { AppError, RateLimitedError } from '../errors';
import { newId } from '../ids';
import { UNKNOWN_OPERATOR_HASH, verifyPassword } from '../operators/password';
import { parseOrThrow } from '../validation';
import { newSessionToken, sessionTokenHash } from './token';

export const signInInput = z.strictObject({
  email: z
    .string()
    .trim()
    .max(254)
    .transform((e) => e.toLowerCase()),
  password: z.string().max(200),
});

const WINDOW_MINUTES = 15;

export interface SignedIn {
  /** For the cookie only: never stored, never logged. */
  token: string;
  sessionId: string;
  expiresAt: Date;
  operator: { id: string; email: string; role: OperatorRole };
}

/**
 * Signs an operator in: one answer for an unknown e-mail and a wrong password (and the same scrypt
 * cost for both), and a 429 once an account or a source address has failed too often in 15 minutes,
 * counted in the database so every web process shares the bound.
 */
export async function signIn({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof signInInput> & { address: string; userAgent?: string };
}): Promise<SignedIn> {
  const { email, password } = parseOrThrow(signInInput, { email: input.email, password: input.password });
  await refuseWhenThrottled(ctx, email, input.address);
  const [operator] = await ctx.db.select().from(operators).where(eq(operators.email, email));
  const matches = await verifyPassword(password, operator?.passwordHash ?? UNKNOWN_OPERATOR_HASH);
  const ok = operator !== undefined && matches;
  await ctx.db.insert(signInAttempts).values({ id: newId(), email, address: input.address, succeeded: ok });
  if (!ok) throw new AppError('unauthenticated', 'invalid_credentials', 'Wrong e-mail or password.');

  const actor = { kind: 'operator' as const, operatorId: operator.id, email: operator.email, role: operator.role };
  return withTransaction(contextFor(ctx, actor, ctx.requestId), async (tx) => {
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

async function refuseWhenThrottled(ctx: Ctx, email: string, address: string): Promise<void> {
  const since = sql`now() - make_interval(mins => ${WINDOW_MINUTES})`;
  const failures = (column: typeof signInAttempts.email | typeof signInAttempts.address, value: string) =>
    ctx.db
      .select({ n: count() })
      .from(signInAttempts)
      .where(and(eq(column, value), eq(signInAttempts.succeeded, false), gt(signInAttempts.at, since)))
      .then(([row]) => row?.n ?? 0);
  const [byAccount, byAddress] = await Promise.all([failures(signInAttempts.email, email), failures(signInAttempts.address, address)]);
  if (byAccount >= ctx.env.SIGN_IN_FAILURES_PER_ACCOUNT || byAddress >= ctx.env.SIGN_IN_FAILURES_PER_ADDRESS) {
    throw new RateLimitedError(WINDOW_MINUTES * 60, {});
  }
}
