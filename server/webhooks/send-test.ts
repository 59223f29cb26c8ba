import { withTransaction, type TenantCtx } from '../context';
import { emitEvent } from '../events/emit';
import { presentEvent } from '../events/present';
import type { EventResource } from '../events/schemas';
import { findSubscription } from './find';
import { presentWebhook } from './present';

/** A synthetic webhook.test event, delivered to this subscription only, whatever its filters. */
export async function sendTestEvent({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<EventResource> {
  return withTransaction(ctx, async (tx) => {
    const row = await findSubscription(tx, input.id);
    const { id, object, url, status } = presentWebhook(row);
    const stored = await emitEvent(tx, {
      type: 'webhook.test',
      partnerId: row.partnerId,
      environment: row.environment,
      object: { id, object, url, status },
    });
    return presentEvent(stored);
  });
}
