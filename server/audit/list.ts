import { and, desc, eq, sql } from 'drizzle-orm';
import { auditLog, operators } from '@/db/schema';
import type { Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { afterPosition, auditConditions, positionOf } from './filter';
import { auditFilterInput, type AuditFilter } from './schemas';

export interface AuditEntry {
  id: string;
  at: Date;
  /** As stored: "operator:<id>", "operator:cli", "partner:<id>", "system:<name>". */
  actor: string;
  /** The operator's e-mail when the actor is an operator that exists. */
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
  /** Where this entry sits in the newest-first order: pass as `after` for the entries that follow. */
  position: string;
}

/**
 * One page of the audit log, newest first, `first` entries plus one to tell whether more follow.
 * The actor's e-mail comes from a join in the same query, not one lookup per entry.
 */
export async function listAuditEntries({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { filter?: AuditFilter; first: number; after?: string };
}): Promise<AuditEntry[]> {
  const filter = parseOrThrow(auditFilterInput, input.filter ?? {}, 'filter');
  const where = auditConditions(filter);
  if (input.after) where.push(afterPosition(input.after));
  return ctx.db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      actor: auditLog.actor,
      actorEmail: operators.email,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      before: auditLog.before,
      after: auditLog.after,
      position: positionOf,
    })
    .from(auditLog)
    .leftJoin(operators, eq(auditLog.actor, sql`'operator:' || ${operators.id}`))
    .where(and(...where))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(input.first + 1);
}
