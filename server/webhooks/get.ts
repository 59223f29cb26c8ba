import type { TenantCtx } from '../context';
import { findSubscription } from './find';
import { presentWebhook } from './present';
import type { WebhookResource } from './schemas';

export async function getWebhook({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<WebhookResource> {
  return presentWebhook(await findSubscription(ctx, input.id));
}
