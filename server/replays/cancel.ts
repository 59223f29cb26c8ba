import { eq } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError } from '../errors';
import { findReplay } from './find';
import { presentReplay } from './present';
import type { ReplayResource } from './schemas';

/** Stops a replay: nothing more is sent; what is on its way finishes, and the counts stay true. */
export async function cancelReplay({ ctx, input }: { ctx: TenantCtx; input: { id: string; replay_id: string } }): Promise<ReplayResource> {
  return withTransaction(ctx, async (tx) => {
    const row = await findReplay(tx, input.id, input.replay_id, true);
    if (row.status !== 'queued' && row.status !== 'running') {
      throw new ConflictError('replay_not_running', `This replay is already ${row.status}.`, { status: row.status });
    }
    const [updated] = await tx.db
      .update(webhookReplays)
      .set({ status: 'cancelled', completedAt: new Date() })
      .where(eq(webhookReplays.id, row.id))
      .returning();
    await recordAudit(tx, {
      action: 'webhook.replay.cancel',
      targetType: 'webhook_replay',
      targetId: row.id,
      before: { status: row.status },
      after: { status: 'cancelled' },
    });
    return presentReplay(tx, updated!);
  });
}
