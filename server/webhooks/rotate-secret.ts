import { eq } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { findSubscription } from './find';
import { presentWebhook } from './present';
import type { WebhookResource } from './schemas';
import { sealSecret } from '../delivery/secrets';
import { generateWebhookSecret } from '../delivery/signing';

// Receivers switch secrets at their own pace: a replaced secret keeps signing for this long after the
// rotation that replaced it, whatever rotations follow. At most this many replaced secrets sign at
// once (so at most four v1 signatures a delivery); a fourth rotation within a day drops the oldest.
const OVERLAP_MS = 24 * 3600 * 1000;
export const MAX_PREVIOUS_SECRETS = 3;

export async function rotateWebhookSecret({
  ctx,
  input,
}: {
  ctx: TenantCtx;
  input: { id: string };
}): Promise<WebhookResource & { secret: string }> {
  const secret = generateWebhookSecret();
  return withTransaction(ctx, async (tx) => {
    const row = await findSubscription(tx, input.id, true);
    const now = new Date();
    const [updated] = await tx.db
      .update(webhookSubscriptions)
      .set({
        secretSealed: sealSecret(ctx, secret),
        previousSecrets: [
          { sealed: row.secretSealed, expires_at: new Date(now.getTime() + OVERLAP_MS).toISOString() },
          ...row.previousSecrets.filter((p) => new Date(p.expires_at) > now),
        ].slice(0, MAX_PREVIOUS_SECRETS),
        updatedAt: now,
      })
      .where(eq(webhookSubscriptions.id, row.id))
      .returning();
    await recordAudit(tx, { action: 'webhook.rotate_secret', targetType: 'webhook_subscription', targetId: row.id });
    return { ...presentWebhook(updated!), secret };
  });
}
