import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema';

export type Database = PostgresJsDatabase<typeof schema>;
/** A database handle or an open transaction: domain verbs accept either. */
export type Executor = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DbClient {
  sql: postgres.Sql;
  db: Database;
}

/** Called with every statement the pool sends (postgres.js `debug`): tests count them; nothing else sets it. */
export type QueryObserver = (query: string) => void;

export function createDbClient(url: string, opts: { max: number; connectTimeoutSeconds: number; onQuery?: QueryObserver }): DbClient {
  const sql = postgres(url, {
    max: opts.max,
    // Fail fast while the database is unreachable: partner requests answer 503 instead of hanging.
    connect_timeout: opts.connectTimeoutSeconds,
    // postgres.js waits before reconnecting after a failed connection, by default up to 20 s
    // (3^retries / 100 s, the count shared by the pool and reset only by a successful connect).
    // During an outage that held queries until the request deadline, and after it delayed recovery
    // by up to 20 s. Cap the wait at 1 s (with jitter, so processes do not reconnect in lockstep).
    backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 1),
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    connection: { application_name: 'partner-delivery' },
    ...(opts.onQuery ? { debug: (_connection: number, query: string) => opts.onQuery!(query) } : {}),
  });
  return { sql, db: drizzle(preparedByDefault(sql), { schema }) };
}

/**
 * Drizzle sends its queries through postgres.js's `unsafe()`, which by default neither names nor
 * caches a statement: Postgres parsed and planned every query again (about twice the database CPU
 * of the same insert as a prepared statement, measured with `npm run bench -- quotes`). Every query
 * Drizzle builds is parameterised, so the set of texts is finite and each connection prepares each
 * once. Drizzle passes `prepare: false` unless a query is named, hence the override. Transactions
 * get their own connection-bound handle, which is wrapped the same way.
 */
function preparedByDefault(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, params, { ...options, prepare: true });
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: postgres.TransactionSql) => unknown;
          return (target.begin as (...a: unknown[]) => unknown)(...args, (tx: postgres.TransactionSql) =>
            fn(preparedByDefault(tx as unknown as postgres.Sql) as unknown as postgres.TransactionSql),
          );
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
