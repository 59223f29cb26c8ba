import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { operators, operatorSessions } from '@/db/schema';
import type { Deps, OperatorActor } from '../context';
import { sessionTokenHash } from './token';

export interface OperatorSession {
  sessionId: string;
  expiresAt: Date;
  actor: OperatorActor;
}

/**
 * The operator a session token belongs to, or undefined when it is unknown, expired or revoked, or its
 * operator is disabled. The
 * role is read from the operator on every request, so a changed role applies at once. The session's
 * last use is written at most once a minute.
 */
export async function authenticateSession(deps: Pick<Deps, 'db'>, token: string): Promise<OperatorSession | undefined> {
  if (token.length === 0 || token.length > 100) return undefined;
  const [row] = await deps.db
    .select({
      sessionId: operatorSessions.id,
      expiresAt: operatorSessions.expiresAt,
      lastSeenAt: operatorSessions.lastSeenAt,
      operatorId: operators.id,
      email: operators.email,
      role: operators.role,
    })
    .from(operatorSessions)
    .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
    .where(
      and(
        eq(operatorSessions.tokenHash, sessionTokenHash(token)),
        isNull(operatorSessions.revokedAt),
        // Disabling ends the sessions too; this is the second lock on the same door.
        isNull(operators.disabledAt),
        gt(operatorSessions.expiresAt, sql`now()`),
      ),
    );
  if (!row) return undefined;
  if (Date.now() - row.lastSeenAt.getTime() > 60_000) {
    await deps.db
      .update(operatorSessions)
      .set({ lastSeenAt: sql`now()` })
      .where(and(eq(operatorSessions.id, row.sessionId), lt(operatorSessions.lastSeenAt, sql`now() - interval '1 minute'`)));
  }
  return {
    sessionId: row.sessionId,
    expiresAt: row.expiresAt,
    actor: { kind: 'operator', operatorId: row.operatorId, email: row.email, role: row.role },
  };
}
