import { eq } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { changedFields } from '../audit/changes';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { findSubscription } from './find';
import { presentWebhook } from './present';
import type { UpdateWebhookInput, WebhookResource } from './schemas';
import { validateWebhookUrl } from './validate-url';

export async function updateWebhook({
  ctx,
  input,
}: {
  ctx: TenantCtx;
  input: UpdateWebhookInput & { id: string };
}): Promise<WebhookResource> {
  const url = input.url === undefined ? undefined : await validateWebhookUrl(ctx, input.url);
  return withTransaction(ctx, async (tx) => {
    const row = await findSubscription(tx, input.id, true);
    const statusChange =
      input.status === undefined || input.status === row.status
        ? {}
        : input.status === 'enabled'
          ? // Re-enabling starts the failure clock afresh.
            { status: 'enabled' as const, disabledReason: null, failingSince: null }
          : { status: 'disabled' as const, disabledReason: ctx.actor.kind === 'operator' ? 'disabled_by_operator' : 'disabled_by_partner' };
    const [updated] = await tx.db
      .update(webhookSubscriptions)
      .set({
        ...(url !== undefined ? { url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.event_filters !== undefined ? { eventFilters: [...new Set(input.event_filters)] } : {}),
        // Deliveries made from now on; those on their way keep the version they were made in (their retries resend the same bytes).
        ...(input.api_version !== undefined ? { apiVersion: input.api_version } : {}),
        ...statusChange,
        updatedAt: new Date(),
      })
      .where(eq(webhookSubscriptions.id, row.id))
      .returning();
    await recordAudit(tx, {
      action: 'webhook.update',
      targetType: 'webhook_subscription',
      targetId: row.id,
      ...changedFields(presentWebhook(row), presentWebhook(updated!), ['updated']),
    });
    return presentWebhook(updated!);
  });
}
