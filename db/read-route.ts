import type postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { rawSqlOf, type Database } from './client';

/**
 * One Drizzle handle over two pools: each statement goes to `replica` while `onReplica()` says so,
 * else to `primary`. The choice is made when a statement is sent, not when a request starts, so a
 * replica that falls behind or goes down is left within one probe (server/boot/read-replica.ts)
 * even by the requests already under way. Both pools keep their own prepared statements and their
 * own use counts (db/client.ts poolUsage). Not for transactions: a read handle never begins one
 * (Deps.read in server/context.ts).
 */
export function routedReads(primary: Database, replica: Database, onReplica: () => boolean): Database {
  const primarySql = rawSqlOf(primary);
  const replicaSql = rawSqlOf(replica);
  const target = () => (onReplica() ? replicaSql : primarySql);
  const routed = new Proxy(primarySql, {
    apply(_target, thisArg, args: unknown[]) {
      return Reflect.apply(target(), thisArg, args);
    },
    get(_target, property) {
      const chosen = target();
      const value: unknown = Reflect.get(chosen, property, chosen);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(chosen) : value;
    },
  }) as postgres.Sql;
  // Drizzle's postgres-js driver sets its type parsers on the client it is given; both pools had theirs
  // set when createDbClient made their own handles, so the options read through the proxy agree.
  return drizzle(routed);
}
