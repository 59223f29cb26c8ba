import type { Executor } from '@/db/client';
import type { Env } from './config/env';
import type { Logger } from './logger';

export type Environment = 'sandbox' | 'production';

export interface PartnerActor {
  kind: 'partner';
  partnerId: string;
  environment: Environment;
  credentialId: string;
  clientId: string;
}
export interface OperatorActor {
  kind: 'operator';
  /** operator id, or "cli" for the admin CLI run by someone with shell access. */
  operatorId: string;
  role: 'admin' | 'support';
}
export interface SystemActor {
  kind: 'system';
  name: string;
}
export type Actor = PartnerActor | OperatorActor | SystemActor;

/** What every domain verb receives: who acts, where, and on which database handle. */
export interface Ctx<A extends Actor = Actor> {
  actor: A;
  requestId: string;
  env: Env;
  log: Logger;
  db: Executor;
  inTransaction?: boolean;
}

export type PartnerCtx = Ctx<PartnerActor>;

/** Runs fn in a transaction, reusing the caller's when there is one, so verbs compose. */
export async function withTransaction<A extends Actor, T>(ctx: Ctx<A>, fn: (tx: Ctx<A>) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  return (ctx.db as Extract<Executor, { transaction: unknown }>).transaction((tx) =>
    fn({ ...ctx, db: tx, inTransaction: true }),
  );
}

export function livemode(environment: Environment): boolean {
  return environment === 'production';
}
