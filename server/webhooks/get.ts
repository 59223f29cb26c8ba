import type { PartnerCtx } from '../context';
import { findSubscription } from './find';
import { presentWebhook } from './present';
import type { WebhookResource } from './schemas';

export async function getWebhook({ ctx, input }: { ctx: PartnerCtx; input: { id: string } }): Promise<WebhookResource> {
  return presentWebhook(await findSubscription(ctx, input.id));
}
