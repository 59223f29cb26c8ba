import { eq, sql } from 'drizzle-orm';
import { signInAttempts } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { RateLimitedError } from '../errors';
import { newId } from '../ids';
import { SignInBusyError } from './sign-in-gates';

export const SIGN_IN_WINDOW_MINUTES = 15;

// Advisory lock namespaces (the first key of pg_advisory_xact_lock(int, int)): accounts and addresses
// never share a key, and every reservation takes the account's before the address's, so two
// reservations cannot wait on each other in a cycle.
const ACCOUNT_LOCK = 21_001;
const ADDRESS_LOCK = 21_002;

/** Who is guessing what: the account's e-mail, and the source address (or another key, e.g. a session). */
export interface AttemptKey {
  email: string;
  address: string;
}

/**
 * One guess at `key`'s password, throttled: reserves it (reserveAttempt; a 429 over the limits), runs
 * `check` (scrypt) outside any transaction through the process's check gate (sign-in-gates.ts; a 503
 * when it is full, and the reservation given back, since nothing was checked), and records the outcome.
 */
export async function throttledGuess(ctx: Ctx, key: AttemptKey, check: () => Promise<boolean>): Promise<boolean> {
  const gates = ctx.signInGates;
  const id = await (gates ? gates.reserve.run(() => reserveAttempt(ctx, key)) : reserveAttempt(ctx, key));
  let ok: boolean;
  try {
    ok = await (gates ? gates.check.run(check) : check());
  } catch (error) {
    if (error instanceof SignInBusyError) await cancelAttempt(ctx, id);
    throw error;
  }
  await finishAttempt(ctx, id, ok);
  return ok;
}

/**
 * The sign-in throttle's one rule. Reserves the right to check one password for `key`, or refuses with
 * a 429 when, in the last 15 minutes, the failures and still-pending attempts reach
 * SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS for this account from this address, SIGN_IN_FAILURES_PER_ADDRESS
 * from this address, or SIGN_IN_FAILURES_PER_ACCOUNT for this account from anywhere.
 *
 * Effects: in one short transaction holding advisory locks on the account and on the address (so
 * every process's reservations for either run one at a time), the counts are read and, under the
 * limits, a pending attempt row is written (one statement); it counts as a failure until
 * finishAttempt marks it. So at most the limit of guesses is ever checked, whatever the parallelism,
 * across processes, and a guess whose process died mid-check stays a failure. Returns the attempt's
 * id. A key refused here is refused from memory for the next second (RecentRefusals), so the rest of
 * a burst neither queries nor waits for the lock.
 *
 * Per address and account pair, not per account: an attacker at one address cannot lock the real
 * operator (at another) out; only SIGN_IN_FAILURES_PER_ACCOUNT failures from many addresses can.
 */
async function reserveAttempt(ctx: Ctx, key: AttemptKey): Promise<string> {
  const { env } = ctx;
  const keys = {
    pair: JSON.stringify(['pair', key.email, key.address]),
    address: JSON.stringify(['address', key.address]),
    account: JSON.stringify(['account', key.email]),
  };
  const refused = ctx.signInGates?.refused;
  if (refused?.has(Object.values(keys))) throw new RateLimitedError(SIGN_IN_WINDOW_MINUTES * 60, {});
  return withTransaction(ctx, async (tx) => {
    await tx.db.execute(
      sql`select pg_advisory_xact_lock(${ACCOUNT_LOCK}, hashtext(${key.email})), pg_advisory_xact_lock(${ADDRESS_LOCK}, hashtext(${key.address}))`,
    );
    // A statement of its own after the locks: under read committed it sees what the previous holder
    // committed. It writes the pending attempt only when every count is under its limit.
    const [row] = await tx.db.execute<{ id: string | null; pair: number; account: number; address: number }>(sql`
      with counts as (
        select count(*) filter (where ${signInAttempts.email} = ${key.email} and ${signInAttempts.address} = ${key.address})::int as pair,
               count(*) filter (where ${signInAttempts.email} = ${key.email})::int as account,
               count(*) filter (where ${signInAttempts.address} = ${key.address})::int as address
          from ${signInAttempts}
         where (${signInAttempts.email} = ${key.email} or ${signInAttempts.address} = ${key.address})
           and ${signInAttempts.succeeded} is not true
           and ${signInAttempts.at} > now() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})
      ), reserved as (
        insert into ${signInAttempts} (id, email, address, succeeded)
        select ${newId()}, ${key.email}, ${key.address}, null from counts
         where pair < ${env.SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS}
           and address < ${env.SIGN_IN_FAILURES_PER_ADDRESS}
           and account < ${env.SIGN_IN_FAILURES_PER_ACCOUNT}
        returning id
      )
      select (select id from reserved) as id, pair, account, address from counts`);
    if (!row?.id) {
      refused?.add([
        ...(row!.pair >= env.SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS ? [keys.pair] : []),
        ...(row!.address >= env.SIGN_IN_FAILURES_PER_ADDRESS ? [keys.address] : []),
        ...(row!.account >= env.SIGN_IN_FAILURES_PER_ACCOUNT ? [keys.account] : []),
      ]);
      throw new RateLimitedError(SIGN_IN_WINDOW_MINUTES * 60, {});
    }
    return row.id;
  });
}

/** Marks a reserved attempt as checked: a success stops counting, a failure keeps counting. */
async function finishAttempt(ctx: Ctx, id: string, succeeded: boolean): Promise<void> {
  await ctx.db.update(signInAttempts).set({ succeeded }).where(eq(signInAttempts.id, id));
}

/** Gives a reservation back when its password was never checked (the process was too busy to). */
async function cancelAttempt(ctx: Ctx, id: string): Promise<void> {
  await ctx.db.delete(signInAttempts).where(eq(signInAttempts.id, id));
}
