import { eq } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { ConflictError, NotFoundError } from '../errors';

/** The request, locked, when it is confirmed and undecided; otherwise why not. */
export async function lockUndecided(tx: Ctx, id: string) {
  const [row] = await tx.db.select().from(accessRequests).where(eq(accessRequests.id, id)).for('update');
  // An unconfirmed request does not exist for operators.
  if (!row || row.status === 'unconfirmed') throw new NotFoundError('access request', id);
  if (row.status !== 'new') throw new ConflictError('access_request_decided', `This request was already ${row.status}.`);
  return row;
}

export function deciderOf(ctx: Ctx<OperatorActor>): string {
  return ctx.actor.email ?? ctx.actor.operatorId;
}
