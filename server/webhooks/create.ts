import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { UnprocessableError } from '../errors';
import { newId } from '../ids';
import { presentWebhook } from './present';
import type { CreateWebhookInput, WebhookResource } from './schemas';
import { sealSecret } from '../delivery/secrets';
import { generateWebhookSecret } from '../delivery/signing';
import { validateWebhookUrl } from './validate-url';
import { LATEST_VERSION } from '../versions/registry';

export async function createWebhook({
  ctx,
  input,
}: {
  ctx: TenantCtx;
  input: CreateWebhookInput;
}): Promise<WebhookResource & { secret: string }> {
  const url = await validateWebhookUrl(ctx, input.url);
  const secret = generateWebhookSecret();
  const sealed = sealSecret(ctx, secret);
  const { partnerId, environment } = ctx.actor;
  return withTransaction(ctx, async (tx) => {
    // Counted under a lock on the partner's rows so two concurrent creates cannot both pass the limit.
    await tx.db.execute(sqlLock(partnerId, environment));
    const [{ n } = { n: 0 }] = await tx.db
      .select({ n: count() })
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.partnerId, partnerId),
          eq(webhookSubscriptions.environment, environment),
          isNull(webhookSubscriptions.deletedAt),
        ),
      );
    if (n >= ctx.env.WEBHOOK_MAX_SUBSCRIPTIONS) {
      throw new UnprocessableError(
        'subscription_limit_reached',
        `At most ${ctx.env.WEBHOOK_MAX_SUBSCRIPTIONS} webhook subscriptions per environment; delete one first.`,
      );
    }
    const now = new Date();
    const [row] = await tx.db
      .insert(webhookSubscriptions)
      .values({
        id: newId(),
        partnerId,
        environment,
        url,
        description: input.description ?? null,
        eventFilters: [...new Set(input.event_filters ?? [])],
        // The partner API passes the request's version when the body names none.
        apiVersion: input.api_version ?? LATEST_VERSION,
        status: 'enabled',
        secretSealed: sealed,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordAudit(tx, {
      action: 'webhook.create',
      targetType: 'webhook_subscription',
      targetId: row!.id,
      after: { url, event_filters: row!.eventFilters, api_version: row!.apiVersion },
    });
    return { ...presentWebhook(row!), secret };
  });
}

function sqlLock(partnerId: string, environment: string) {
  return sql`select pg_advisory_xact_lock(hashtext(${`webhooks:${partnerId}:${environment}`}))`;
}
