import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
/**
 * No relational schema: nothing here uses Drizzle's relational queries (`db.query.*`), and building one's map
 * cost ~0.4-1 ms of CPU at each handle made, which is every operator request (cancellableBy): 3-8 % of a
 * console page's CPU (`npm run bench -- operator-queries --profile`, issue 29).
 */
export type Database = PostgresJsDatabase;
/** A database handle or an open transaction: domain verbs accept either. */
export type Executor = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DbClient {
  sql: postgres.Sql;
  db: Database;
  /** The pool's connections in use and the statements waiting for one, as Drizzle's traffic sees it (see trackDemand). */
  poolUsage(): PoolUsage;
}

export interface PoolUsage {
  max: number;
  inUse: number;
  waiting: number;
}

/**
 * The postgres.js handle under a Drizzle database or open transaction: for the few hottest
 * statements, written as prepared tagged templates (Drizzle spends more CPU building a statement
 * than Postgres spends running a small one), and for pg-boss to insert jobs in the caller's transaction.
 */
export function rawSqlOf(db: Executor): postgres.Sql {
  const client = (db as unknown as { session?: { client?: postgres.Sql } }).session?.client;
  if (!client) throw new Error('rawSqlOf needs a drizzle postgres-js database or transaction');
  return client;
}

/** Called with every statement the pool sends (postgres.js `debug`): tests count them; nothing else sets it. */
export type QueryObserver = (query: string) => void;

export function createDbClient(
  url: string,
  opts: {
    max: number;
    connectTimeoutSeconds: number;
    onQuery?: QueryObserver;
    /** Shown in pg_stat_activity. */
    applicationName?: string;
    /** Postgres ends any statement of this pool running longer (its `statement_timeout`). */
    statementTimeoutMs?: number;
  },
): DbClient {
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
    connection: {
      application_name: opts.applicationName ?? 'partner-delivery',
      // Every statement here reads or writes a few rows by index, but the planner's estimates for a statement over
      // `jsonb_to_recordset` and the week partitions run into the millions (its default 100 rows per function, times
      // each partition's guess), past `jit_above_cost`: on Debian's PostgreSQL 15, built with LLVM, a subscription's
      // 7-day health spent 1,383 ms compiling and 7 ms running (EXPLAIN ANALYZE at 1,000,000 attempts; p50 1,565 ms
      // against 20 ms on the embedded Postgres, which has no JIT). Nothing this service sends runs long enough to repay it.
      jit: 'off',
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
    ...(opts.onQuery ? { debug: (_connection: number, query: string) => opts.onQuery!(query) } : {}),
  });
  const demand = new Demand();
  return {
    sql,
    db: drizzle(preparedByDefault(sql, demand)),
    poolUsage: () => ({
      max: opts.max,
      inUse: Math.min(demand.outstanding, opts.max),
      waiting: Math.max(0, demand.outstanding - opts.max),
    }),
  };
}

/** Statements and transactions of a pool awaited and not yet settled. */
class Demand {
  outstanding = 0;
  // One function for every statement: a closure per statement cost a property definition each under tsx
  // (esbuild's keepNames names every `const f = () => ...`), ~0.8 us apiece.
  readonly settled = () => void this.outstanding--;
}

/**
 * postgres.js keeps its connection queues private, so the pool's use is counted where Drizzle
 * reaches it: each statement from the moment it is awaited (a query runs only then) until it
 * settles, and each transaction for its whole life (it holds a connection throughout). Past `max` the rest wait for a connection
 * (or are pipelined behind another statement on a busy one, which is waiting too). The raw `sql`
 * handle (pg-boss has its own pool; the scrape and the LISTEN connection use their own) is not counted.
 */
function trackDemand<Q extends PromiseLike<unknown>>(query: Q, demand: Demand): Q {
  const then = query.then;
  let counted = false;
  query.then = function (this: Q, ...args: Parameters<Q['then']>) {
    if (!counted) {
      counted = true;
      demand.outstanding++;
      then.call(this, demand.settled, demand.settled);
    }
    return then.apply(this, args);
  } as Q['then'];
  return query;
}

/**
 * Drizzle sends its queries through postgres.js's `unsafe()`, which by default neither names nor
 * caches a statement: Postgres parsed and planned every query again (about twice the database CPU
 * of the same insert as a prepared statement, measured with `npm run bench -- quotes`). Every query
 * Drizzle builds is parameterised, so the set of texts is finite and each connection prepares each
 * once. Drizzle passes `prepare: false` unless a query is named, hence the override. Transactions
 * get their own connection-bound handle, which is wrapped the same way.
 */
function preparedByDefault(sql: postgres.Sql, demand?: Demand): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) => {
          const pending = target.unsafe(query, params, { ...options, prepare: true });
          return demand ? trackDemand(pending, demand) : pending;
        };
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: postgres.TransactionSql) => unknown;
          // A transaction's statements run on the connection it holds: counted once, as the transaction.
          const transaction = (target.begin as (...a: unknown[]) => Promise<unknown>)(...args, (tx: postgres.TransactionSql) =>
            fn(preparedByDefault(tx as unknown as postgres.Sql) as unknown as postgres.TransactionSql),
          );
          if (demand) {
            // begin() starts at once and returns a native promise (whose own `then` an await would skip).
            demand.outstanding++;
            const settled = demand.settled;
            transaction.then(settled, settled);
          }
          return transaction;
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

type Cancellable = { cancel(): unknown; then: PromiseLike<unknown>['then'] };

/**
 * The same database, for one piece of work with a deadline: when `signal` aborts, every statement it
 * started and that has not answered is cancelled (postgres.js drops one still queued for a connection and
 * sends Postgres a cancel request for one running, which then fails with 57014), and any statement asked
 * for afterwards fails at once with `signal.reason`. A statement cancelled inside a transaction fails it,
 * so the transaction rolls back whole. The Drizzle handle is made once per operator request (cheap without a
 * relational schema, see Database).
 */
export function cancellableBy(
  handles: { db: Executor; sql: postgres.Sql; read: Executor },
  signal: AbortSignal,
): { db: Executor; sql: postgres.Sql; read: Executor } {
  const open = new Set<Cancellable>();
  signal.addEventListener('abort', () => {
    for (const query of open) void Promise.resolve(query.cancel()).catch(() => {});
    open.clear();
  });
  const db = drizzle(cancelling(rawSqlOf(handles.db), signal, open));
  // A second handle only when reads have a pool of their own (DATABASE_READ_URL).
  const read = handles.read === handles.db ? db : drizzle(cancelling(rawSqlOf(handles.read), signal, open));
  return { db, sql: cancelling(handles.sql, signal, open), read };
}

function cancelling(sql: postgres.Sql, signal: AbortSignal, open: Set<Cancellable>): postgres.Sql {
  const track = <Q>(query: Q): Q => {
    if (!query || typeof (query as Partial<Cancellable>).cancel !== 'function') return query;
    const q = query as unknown as Cancellable;
    // Watch for the answer through `then` only when the caller awaits: calling `then` here would start
    // the query before Drizzle says how to read its rows (`.values()`). A settled query leaves the set,
    // so a cancel request never reaches a connection that has moved on to another caller's statement.
    const then = q.then;
    let watched = false;
    q.then = function (this: Cancellable, ...args: Parameters<Cancellable['then']>) {
      if (!watched) {
        watched = true;
        const settled = () => void open.delete(q);
        then.call(this, settled, settled);
      }
      return then.apply(this, args);
    } as Cancellable['then'];
    open.add(q);
    return query;
  };
  const refuseIfAborted = () => {
    if (signal.aborted) throw signal.reason;
  };
  return new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      // sql`...` is a query; sql(values) and sql(identifier) are fragments for one, run by nobody.
      const isQuery = Array.isArray(args[0]) && 'raw' in (args[0] as object);
      if (isQuery) refuseIfAborted();
      const result = Reflect.apply(target, thisArg, args);
      return isQuery ? track(result) : result;
    },
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (...args: Parameters<postgres.Sql['unsafe']>) => {
          refuseIfAborted();
          return track(target.unsafe(...args));
        };
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          refuseIfAborted();
          const fn = args.pop() as (tx: postgres.TransactionSql) => unknown;
          return (target.begin as (...a: unknown[]) => Promise<unknown>)(...args, (tx: postgres.TransactionSql) =>
            fn(cancelling(tx as unknown as postgres.Sql, signal, open) as unknown as postgres.TransactionSql),
          );
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * Sends a postgres.js statement unnamed, so Postgres plans it for its values on every run instead of
 * keeping the generic plan it may settle on after five. For the delivery engine's id-list statements
 * over the partitioned history tables: planned with the batch's event ids as values, Postgres reads
 * only the weeks holding them (a generic plan opens and locks every week's partition and its indexes
 * on each run), and costs its choices against the tables' size now, which a burst changes within
 * seconds. Planning costs 1-2 ms a batch of 50-70 deliveries (pg_stat_statements, bench 2026-11-26).
 *
 * In one round trip: postgres.js sends an unprepared statement's Parse and Describe first and waits for its
 * parameters' types before it binds them, unless the query says `describe: false` (our patch,
 * patches/postgres+3.4.9.patch). These statements pass only text and numbers, each cast where the type matters,
 * so the server infers what the Describe would have told. The engine records one batch at a time, so the second
 * round trip was paid by every batch: sampled every 10 ms, Postgres's backends sat in ClientRead inside the
 * recording statement in 484 of 2,508 samples (a replay at 559 events/s, Debian's PostgreSQL 15).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any row type: only the options are touched
export function plannedEachTime<Q extends postgres.PendingQuery<any>>(query: Q): Q {
  const { options } = query as unknown as { options: { prepare?: boolean; describe?: boolean } };
  options.prepare = false;
  options.describe = false;
  return query;
}
