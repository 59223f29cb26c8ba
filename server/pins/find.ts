import { and, eq } from 'drizzle-orm';
import { apiVersionPins } from '@/db/schema';
import type { TenantCtx } from '../context';
import type { PinRow } from './present';

/** The pin of the ctx's environment, if it has one; `forUpdate` locks it for an upgrade or rollback. */
export async function findPin(ctx: TenantCtx, forUpdate = false): Promise<PinRow | undefined> {
  const query = ctx.db
    .select()
    .from(apiVersionPins)
    .where(and(eq(apiVersionPins.partnerId, ctx.actor.partnerId), eq(apiVersionPins.environment, ctx.actor.environment)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row;
}
