import type { Ctx } from '../context';
import type { ClaimedAttempt } from './claimed-attempt';
import type { PostOutcome, WebhookClient } from './http-client';
import { signingSecrets } from './secrets';
import { deliveryHeaders } from './signing';
import { checkWebhookUrl } from './url-policy';
import { receivesDeliveries } from './disabled';

export const USER_AGENT = 'PartnerDeliveryPlatform-Webhooks/1.0';

export interface AttemptOutcome {
  claimed: ClaimedAttempt;
  startedAt: Date;
  /** absent: not sent, because the subscription was disabled or deleted meanwhile. */
  outcome?: PostOutcome;
}

/** Not written: `mayWrite` said no as the request was about to go out (the caller confirms its claim, then sends or drops it). */
export interface Withheld {
  claimed: ClaimedAttempt;
  withheld: true;
}

/**
 * Signs and sends one claimed attempt. It never throws: whatever goes wrong on the way (a secret that
 * cannot be opened, a client that throws) is an outcome of kind `internal`, recorded and retried
 * like a failed request, so one broken delivery cannot take its neighbours down with it.
 */
export async function attemptDelivery(
  ctx: Ctx,
  claimed: ClaimedAttempt,
  client: WebhookClient,
  mayWrite?: () => boolean,
): Promise<AttemptOutcome | Withheld> {
  const startedAt = new Date();
  if (!receivesDeliveries({ status: claimed.sub_status, deletedAt: claimed.deleted_at })) return { claimed, startedAt };
  try {
    const outcome = await send(ctx, claimed, client, startedAt, mayWrite);
    return outcome.kind === 'withheld' ? { claimed, withheld: true } : { claimed, startedAt, outcome };
  } catch (error) {
    const message = `could not send: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
    ctx.log.error(
      { delivery_id: claimed.id, subscription_id: claimed.subscription_id, attempt: claimed.attempt, err: message },
      'webhook attempt failed inside the service',
    );
    return { claimed, startedAt, outcome: { kind: 'error', errorKind: 'internal', message, durationMs: Date.now() - startedAt.getTime() } };
  }
}

async function send(
  ctx: Ctx,
  claimed: ClaimedAttempt,
  client: WebhookClient,
  startedAt: Date,
  mayWrite?: () => boolean,
): Promise<PostOutcome | { kind: 'withheld' }> {
  // The body signed is the body sent, byte for byte, rendered when the attempt was claimed; `t` is this attempt's time.
  const body = claimed.body;
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const secrets = signingSecrets(ctx, { secretSealed: claimed.secret_sealed, previousSecrets: claimed.previous_secrets });
  const headers = deliveryHeaders({
    secrets,
    eventId: claimed.event_id,
    eventType: claimed.event_type,
    apiVersion: claimed.api_version,
    timestamp,
    body,
    userAgent: USER_AGENT,
  });

  // Checked again at every delivery: the address the URL had at creation proves nothing now.
  const checked = await checkWebhookUrl(claimed.url, { allowPrivate: ctx.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolve: ctx.resolver });
  if ('code' in checked) {
    return {
      kind: 'error',
      errorKind: checked.code === 'url_unresolvable' ? 'dns' : 'blocked_address',
      message: checked.message,
      durationMs: 0,
    };
  }
  return client.post(claimed.url, headers, body, mayWrite);
}
