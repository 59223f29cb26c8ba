import type postgres from 'postgres';
import { cancellableBy, type Executor } from '@/db/client';
import type { Env } from './config/env';
import type { SecretBox } from './crypto/secret-box';
import type { Logger } from './logger';
import type { Metrics } from './observability';
import type { Mailer } from './mail/mailer';
import type { JobQueue } from './outbox/job-queue';
import type { SignInGates } from './sessions/sign-in-gates';
import type { Resolver } from './delivery/url-policy';

export type Environment = 'sandbox' | 'production';

export interface PartnerActor {
  kind: 'partner';
  partnerId: string;
  environment: Environment;
  credentialId: string;
  clientId: string;
}
export type OperatorRole = 'admin' | 'support';
export interface OperatorActor {
  kind: 'operator';
  /** operator id, or "cli" for the admin CLI run by someone with shell access. */
  operatorId: string;
  /** The signed-in operator's e-mail (absent for the CLI): shown as who asked for a redelivery or replay. */
  email?: string;
  role: OperatorRole;
}
export interface SystemActor {
  kind: 'system';
  name: string;
}
/**
 * An operator acting inside one partner's environment (support redelivering its events, disabling its
 * endpoint): partner-scoped verbs read partnerId and environment from it as from the partner's key,
 * and the audit log names the operator.
 */
export interface OperatorForPartnerActor extends OperatorActor {
  partnerId: string;
  environment: Environment;
}
export type TenantActor = PartnerActor | OperatorForPartnerActor;
export type Actor = PartnerActor | OperatorActor | SystemActor;

/**
 * What a process gives its verbs, made once at start by server/boot and carried in every ctx, so a
 * verb reads its dependencies from its argument rather than from a process-wide lookup.
 */
export interface Deps {
  env: Env;
  log: Logger;
  /** The pool through Drizzle; inside withTransaction, the open transaction. */
  db: Executor;
  /**
   * The same pool, raw (postgres.js prepared statements), and always OUTSIDE any transaction: in a ctx
   * from withTransaction it is still the pool, so a statement on it commits on its own, at once. The
   * right handle for one statement that is atomic by itself and must neither wait for nor roll back
   * with the caller's transaction: the delivery hot path (claims, lease renewals, recorded successes).
   * A raw statement that belongs to the open transaction goes through `rawSqlOf(ctx.db)` (db/client.ts),
   * as emitEvent's does.
   */
  sql: postgres.Sql;
  /**
   * For a list or browse query that need not see this request's own write: the read replica's pool
   * (DATABASE_READ_URL) while it is within DATABASE_READ_MAX_LAG_SECONDS of the primary, else the
   * primary (server/boot/read-replica.ts decides, statement by statement). Use it for history read in
   * pages (events, deliveries, attempts, orders, the console's aggregates), where a row a few seconds
   * late is shown on the next page load. Never for a read the request's own write must be in, a
   * check that guards a write, or anything in a transaction: those use `db`. The faces enforce the
   * rest: inside withTransaction, in a partner request that is not a GET, and in a GraphQL operation
   * that is not a browse (a mutation, or a lookup by id an operator opens after acting) it is `db`
   * (primaryReads). Without a replica it is `db`.
   */
  read: Executor;
  /** Where server/outbox enqueues jobs (pg-boss, wired by server/boot). */
  jobs: JobQueue;
  /** Seals and opens webhook signing secrets; absent in a process started without a key (the admin CLI). */
  secretBox?: SecretBox;
  /** How webhook hosts resolve; tests swap in their own to point names at chosen addresses. */
  resolver: Resolver;
  /** SMTP, when SMTP_URL is set; absent, mail stays in the local outbox (server/mail/). */
  mailer?: Mailer;
  /** Counters and histograms (server/observability.ts); absent where nothing scrapes (the admin CLI, some tests). */
  metrics?: Metrics;
  /** Bounds the process's sign-in reservations and password checks (scrypt) at once; absent (the admin CLI), they just run. */
  signInGates?: SignInGates;
}

/** What every domain verb receives: who acts, for which request, and the process's dependencies. */
export interface Ctx<A extends Actor = Actor> extends Deps {
  actor: A;
  requestId: string;
  inTransaction?: boolean;
  /** Inside withTransaction: run, in order, once the transaction committed (never if it rolled back). */
  afterCommit?: (() => void)[];
}

/** A ctx scoped to one partner and environment: the partner's own request, or an operator acting for it. */
export type TenantCtx = Ctx<TenantActor>;

/** The operator's ctx narrowed to one partner's environment, for the partner-scoped verbs. */
export function actingFor(ctx: Ctx<OperatorActor>, tenant: { partnerId: string; environment: Environment }): TenantCtx {
  return { ...ctx, actor: { ...ctx.actor, partnerId: tenant.partnerId, environment: tenant.environment } };
}

/** Who asked, as attempts and replays show it: "partner:<client id>" or "operator:<e-mail or id>". */
export function requesterOf(actor: Actor): string {
  if (actor.kind === 'partner') return `partner:${actor.clientId}`;
  if (actor.kind === 'operator') return `operator:${actor.email ?? actor.operatorId}`;
  return `system:${actor.name}`;
}

/** A ctx for one actor and request. Picks the dependencies, so a larger object passed as deps stays out. */
export function contextFor<A extends Actor>(deps: Deps, actor: A, requestId: string): Ctx<A> {
  const { env, log, db, sql, read, jobs, secretBox, resolver, mailer, metrics, signInGates } = deps;
  return { env, log, db, sql, read, jobs, secretBox, resolver, mailer, metrics, signInGates, actor, requestId };
}

/** The ctx whose reads all go to the primary: for work that writes, so no read of it misses what it wrote. */
export function primaryReads<C extends Pick<Deps, 'db' | 'read'>>(ctx: C): C {
  return ctx.read === ctx.db ? ctx : { ...ctx, read: ctx.db };
}

/** Runs fn in a transaction, reusing the caller's when there is one, so verbs compose. */
export async function withTransaction<A extends Actor, T>(ctx: Ctx<A>, fn: (tx: Ctx<A>) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  const afterCommit: (() => void)[] = [];
  const result = await (ctx.db as Extract<Executor, { transaction: unknown }>).transaction((tx) =>
    fn({ ...ctx, db: tx, read: tx, inTransaction: true, afterCommit }),
  );
  for (const run of afterCommit) run();
  return result;
}

/**
 * The ctx for work with a deadline: when `signal` aborts, the statements it started are cancelled and
 * none starts after (db/client.ts cancellableBy); a transaction open then rolls back whole.
 */
export function boundedBy<A extends Actor>(ctx: Ctx<A>, signal: AbortSignal): Ctx<A> {
  return { ...ctx, ...cancellableBy(ctx, signal) };
}

export function livemode(environment: Environment): boolean {
  return environment === 'production';
}
