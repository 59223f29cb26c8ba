import { eq } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { findSubscription } from './find';

/** Soft delete: the delivery log keeps pointing at the row, but the partner API no longer sees it and nothing is sent to it. */
export async function deleteWebhook({ ctx, input }: { ctx: TenantCtx; input: { id: string } }) {
  return withTransaction(ctx, async (tx) => {
    const row = await findSubscription(tx, input.id, true);
    await tx.db
      .update(webhookSubscriptions)
      .set({ deletedAt: new Date(), status: 'disabled', disabledReason: 'deleted' })
      .where(eq(webhookSubscriptions.id, row.id));
    await recordAudit(tx, {
      action: 'webhook.delete',
      targetType: 'webhook_subscription',
      targetId: row.id,
      before: { url: row.url, status: row.status },
      after: { deleted: true, status: 'disabled' },
    });
    return { id: row.id, object: 'webhook_subscription' as const, deleted: true as const };
  });
}
