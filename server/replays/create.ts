import { and, eq, inArray } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantActor, type TenantCtx } from '../context';
import { ConflictError, ValidationError } from '../errors';
import { newId } from '../ids';
import { enqueue } from '../outbox/enqueue';
import { REPLAY_PAGE } from '../outbox/queues';
import { findSubscription } from '../webhooks/find';
import { livemode } from '../context';
import { presentReplay, windowOf } from './present';
import type { CreateReplayInput, ReplayResource } from './schemas';
import { acceptedTypes } from '../events/catalog';
import { countMatching, firstMatching } from './select';
import { receivesDeliveries } from '../delivery/disabled';
import { assertRetained } from '../history/window';

const MAX_WINDOW_SECONDS = 30 * 86_400;
const DRY_RUN_SAMPLE = 10;

export type ReplayAnswer = { kind: 'replay'; replay: ReplayResource } | { kind: 'dry_run'; preview: Record<string, unknown> };

/**
 * Starts a replay of a window of past events to one subscription (or, as a dry run, counts it and
 * stores nothing). One replay at a time per subscription; the subscription must be enabled.
 */
export async function createReplay({
  ctx,
  input,
}: {
  ctx: TenantCtx;
  input: CreateReplayInput & { webhookId: string };
}): Promise<ReplayAnswer> {
  const now = Math.floor(Date.now() / 1000);
  const until = input.until ?? now;
  const invalid = (param: string, message: string) => new ValidationError([{ param, code: 'parameter_invalid', message }]);
  if (input.since > now) throw invalid('since', 'since must not be in the future.');
  if (until > now) throw invalid('until', 'until must not be in the future.');
  if (input.since >= until) throw invalid('until', 'until must be after since.');
  if (until - input.since > MAX_WINDOW_SECONDS) throw invalid('until', 'A replay covers at most 30 days: until - since <= 2592000.');
  assertRetained(ctx.env, 'since', new Date(input.since * 1000));

  return withTransaction(ctx, async (tx) => {
    const sub = await findSubscription(tx, input.webhookId, true);
    const accepted = acceptedTypes(sub.eventFilters);
    const errors = (input.event_types ?? []).flatMap((type, i) =>
      accepted.includes(type)
        ? []
        : [
            {
              param: `event_types.${i}`,
              code: 'parameter_invalid',
              message: `'${type}' is not a type this subscription receives (its event_filters).`,
            },
          ],
    );
    if (errors.length > 0) throw new ValidationError(errors);
    const row = {
      id: newId(),
      partnerId: ctx.actor.partnerId,
      environment: ctx.actor.environment,
      subscriptionId: sub.id,
      status: 'queued' as const,
      since: new Date(input.since * 1000),
      until: new Date(until * 1000),
      eventTypes: input.event_types ? [...new Set(input.event_types)] : null,
      only: input.only ?? 'all',
      eventsMatched: 0,
      eventsEnqueued: 0,
      cursor: null,
      jobStep: 0,
      requestedBy: requestedBy(ctx.actor),
      createdAt: new Date(),
      startedAt: null,
      completedAt: null,
    };
    const window = windowOf(row, row.eventTypes ?? accepted);
    const matched = await countMatching(tx, window);
    if (input.dry_run) {
      const first = await firstMatching(tx, window, DRY_RUN_SAMPLE);
      return {
        kind: 'dry_run',
        preview: {
          object: 'replay_dry_run',
          livemode: livemode(row.environment),
          webhook_id: sub.id,
          since: input.since,
          until,
          event_types: row.eventTypes,
          only: row.only,
          events_matched: matched,
          first_event_ids: first,
        },
      };
    }
    if (!receivesDeliveries(sub)) {
      throw new ConflictError('subscription_disabled', 'This subscription is disabled: enable it (PATCH status) before replaying to it.');
    }
    const [running] = await tx.db
      .select({ id: webhookReplays.id })
      .from(webhookReplays)
      .where(and(eq(webhookReplays.subscriptionId, sub.id), inArray(webhookReplays.status, ['queued', 'running'])));
    if (running) {
      throw new ConflictError('replay_in_progress', `Replay ${running.id} of this subscription is still in progress; cancel it or wait.`, {
        replay_id: running.id,
      });
    }
    const [inserted] = await tx.db
      .insert(webhookReplays)
      .values({ ...row, eventsMatched: matched })
      .returning();
    await enqueue(tx, REPLAY_PAGE, { replay_id: row.id, step: 0 });
    await recordAudit(tx, {
      action: 'webhook.replay',
      targetType: 'webhook_subscription',
      targetId: sub.id,
      after: { replay_id: row.id, since: input.since, until, only: row.only, events_matched: matched },
    });
    return { kind: 'replay', replay: await presentReplay(tx, inserted!) };
  });
}

function requestedBy(actor: TenantActor): Record<string, string> {
  if (actor.kind === 'partner') return { kind: 'partner', credential_id: actor.credentialId, client_id: actor.clientId };
  return { kind: 'operator', operator_id: actor.operatorId, ...(actor.email ? { email: actor.email } : {}) };
}
