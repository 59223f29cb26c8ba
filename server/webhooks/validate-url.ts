import type { Ctx } from '../context';
import { ValidationError } from '../errors';
import { checkWebhookUrl } from '../delivery/url-policy';

/** 400 unless the URL is https with a public host (or private networks are allowed for development). */
export async function validateWebhookUrl(ctx: Ctx, url: string): Promise<string> {
  const checked = await checkWebhookUrl(url, { allowPrivate: ctx.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolve: ctx.resolver });
  if ('code' in checked) throw new ValidationError([{ param: 'url', code: checked.code, message: checked.message }]);
  return checked.url.toString();
}
