import { and, eq } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import type { ReplayRow } from './present';

/** A replay of the caller's subscription (partner and environment); anything else is a 404. */
export async function findReplay(ctx: TenantCtx, webhookId: string, replayId: string, forUpdate = false): Promise<ReplayRow> {
  const query = ctx.db
    .select()
    .from(webhookReplays)
    .where(
      and(
        eq(webhookReplays.id, replayId),
        eq(webhookReplays.subscriptionId, webhookId),
        eq(webhookReplays.partnerId, ctx.actor.partnerId),
        eq(webhookReplays.environment, ctx.actor.environment),
      ),
    );
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('replay', replayId);
  return row;
}
