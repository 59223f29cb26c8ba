import { and, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { auditLog, operators } from '@/db/schema';
import { ValidationError } from '../errors';
import type { AuditFilter } from './schemas';

/** The SQL conditions of a filter. An actor without ':' is an operator: by e-mail when it has an '@', else by id. */
export function auditConditions(filter: AuditFilter): SQL[] {
  const where: SQL[] = [];
  const { actor } = filter;
  if (actor !== undefined) {
    if (actor.includes(':')) where.push(eq(auditLog.actor, actor));
    else if (actor.includes('@')) {
      where.push(
        sql`${auditLog.actor} in (select 'operator:' || ${operators.id} from ${operators} where ${operators.email} = ${actor.toLowerCase()})`,
      );
    } else where.push(eq(auditLog.actor, `operator:${actor}`));
  }
  if (filter.action !== undefined) where.push(eq(auditLog.action, filter.action));
  if (filter.targetType !== undefined) where.push(eq(auditLog.targetType, filter.targetType));
  if (filter.targetId !== undefined) where.push(eq(auditLog.targetId, filter.targetId));
  if (filter.since) where.push(gte(auditLog.at, filter.since));
  if (filter.until) where.push(lt(auditLog.at, filter.until));
  return where;
}

// A position in the newest-first order: the entry's time to the microsecond (a JS Date keeps only
// milliseconds, and entries of one transaction share a time) and its id.
const POSITION = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)_([0-9A-Z]{26})$/;

/** Entries strictly after `position` in newest-first order. */
export function afterPosition(position: string, param = 'after'): SQL {
  const m = POSITION.exec(position);
  if (!m) throw new ValidationError([{ param, code: 'parameter_invalid', message: `${param} is not a cursor this API returned.` }]);
  const [, at, id] = m;
  return or(lt(auditLog.at, sql`${at}::timestamptz`), and(eq(auditLog.at, sql`${at}::timestamptz`), lt(auditLog.id, id!)))!;
}

/** The position of a row, as afterPosition reads it. */
export const positionOf = sql<string>`to_char(${auditLog.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || ${auditLog.id}`;
