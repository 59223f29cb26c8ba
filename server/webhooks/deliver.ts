import { eq, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookSubscriptions, type EventEnvelope } from '@/db/schema';
import { withTransaction, type Ctx, type Environment } from '../context';
import { newId } from '../ids';
import { enqueue } from '../outbox/enqueue';
import { DELIVER, type DeliverJob } from '../outbox/queues';
import type { PostOutcome, WebhookClient } from './http-client';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule';
import { signingSecrets } from './secrets';
import { deliveryHeaders } from './signing';
import { checkWebhookUrl } from './url-policy';

export const USER_AGENT = 'PartnerDeliveryPlatform-Webhooks/1.0';

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'skipped' | 'stale';

type Claimed = {
  id: string;
  event_type: string;
  url: string;
  sub_status: 'enabled' | 'disabled';
  deleted_at: string | null;
  environment: Environment;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  envelope: EventEnvelope;
};

/**
 * Attempts of several deliveries (one fetched batch of jobs), sent concurrently. Each attempt is
 * claimed in the database first, so two workers never send the same attempt at once; a claim whose
 * worker died expires and another worker takes it over (the receiver then sees the same event id
 * again, which is why it dedupes on `id`). The database work is per batch where it can be: one
 * statement claims them all, one records every success (the common case); failures are recorded
 * one by one, each with its retry job in its transaction.
 */
export async function attemptDeliveries({
  ctx,
  inputs,
  client,
}: {
  ctx: Ctx;
  inputs: DeliverJob[];
  client: WebhookClient;
}): Promise<AttemptResult[]> {
  const claimed = await claim(ctx, inputs);
  const successes: Success[] = [];
  const results = await Promise.all(
    inputs.map(async (input): Promise<AttemptResult> => {
      const row = claimed.get(input.delivery_id);
      // A second job for the same attempt in one batch finds the claim already taken.
      claimed.delete(input.delivery_id);
      if (!row || row.attempt !== input.attempt) return 'stale';
      if (row.sub_status !== 'enabled' || row.deleted_at) {
        await ctx.db
          .update(webhookDeliveries)
          .set({ status: 'skipped', attempts: input.attempt - 1, claimedUntil: null, updatedAt: new Date() })
          .where(eq(webhookDeliveries.id, row.id));
        return 'skipped';
      }
      const { startedAt, outcome } = await send(ctx, row, client);
      if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
        successes.push({ input, startedAt, outcome });
        return 'succeeded';
      }
      return recordAttempt(ctx, row, input, startedAt, outcome);
    }),
  );
  if (successes.length > 0) await recordSuccesses(ctx, successes);
  return results;
}

type ClaimedRow = Claimed & { attempt: number };

/** Claims each delivery's attempt in one statement; returns the claimed rows by delivery id. */
async function claim(ctx: Ctx, inputs: DeliverJob[]): Promise<Map<string, ClaimedRow>> {
  const claimSeconds = Math.ceil(ctx.env.WEBHOOK_TIMEOUT_MS / 1000) + 10;
  // The hot path runs as postgres.js prepared statements: Drizzle's query building cost more CPU per
  // delivery than the HTTPS request itself (`npm run bench -- delivery --profile`). Ids are ULIDs, so
  // a comma-separated list needs no escaping.
  const rows = await ctx.sql<ClaimedRow[]>`
    update webhook_deliveries d
    set attempts = j.attempt, claimed_until = now() + make_interval(secs => ${claimSeconds}), updated_at = now()
    from unnest(string_to_array(${inputs.map((i) => i.delivery_id).join(',')}, ','), string_to_array(${inputs.map((i) => i.attempt).join(',')}, ',')::int[]) as j(id, attempt),
      webhook_subscriptions s, events e
    where d.id = j.id and s.id = d.subscription_id and e.id = d.event_id and d.status = 'pending'
      and ((d.attempts = j.attempt - 1 and d.claimed_until is null) or (d.attempts = j.attempt and d.claimed_until < now()))
    returning d.id, j.attempt, d.event_type, s.url, s.status as sub_status, s.deleted_at, s.environment, s.secret_sealed,
      s.previous_secret_sealed, s.previous_secret_expires_at, e.envelope`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** Signs and sends one claimed attempt; the URL's addresses are checked again first. */
async function send(ctx: Ctx, claimed: Claimed, client: WebhookClient): Promise<{ startedAt: Date; outcome: PostOutcome }> {
  // The body signed is the body sent, byte for byte; `t` is this attempt's time. (Drizzle sets the
  // client to hand json back as text; the parse and stringify keep the envelope's key order as stored.)
  const envelope = typeof claimed.envelope === 'string' ? (JSON.parse(claimed.envelope) as EventEnvelope) : claimed.envelope;
  const body = JSON.stringify(envelope);
  const startedAt = new Date();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const secrets = signingSecrets(ctx, {
    secretSealed: claimed.secret_sealed,
    previousSecretSealed: claimed.previous_secret_sealed,
    previousSecretExpiresAt: claimed.previous_secret_expires_at ? new Date(claimed.previous_secret_expires_at) : null,
  });
  const headers = deliveryHeaders({ secrets, eventId: envelope.id, eventType: claimed.event_type, timestamp, body, userAgent: USER_AGENT });

  // Checked again at every delivery: the address the URL had at creation proves nothing now.
  const checked = await checkWebhookUrl(claimed.url, { allowPrivate: ctx.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolve: ctx.resolver });
  const outcome: PostOutcome =
    'code' in checked
      ? {
          kind: 'error',
          errorKind: checked.code === 'url_unresolvable' ? 'dns' : 'blocked_address',
          message: checked.message,
          durationMs: 0,
        }
      : await client.post(claimed.url, headers, body);
  return { startedAt, outcome };
}

interface Success {
  input: DeliverJob;
  startedAt: Date;
  outcome: Extract<PostOutcome, { kind: 'response' }>;
}

/**
 * Every success of a batch in one statement (atomic without a transaction): the attempts, the
 * deliveries, and the end of a failing streak, written only where there is one.
 */
async function recordSuccesses(ctx: Ctx, successes: Success[]): Promise<void> {
  const rows = successes.map(({ input, startedAt, outcome }) => ({
    id: newId(),
    delivery_id: input.delivery_id,
    subscription_id: input.subscription_id,
    attempt: input.attempt,
    trigger: input.trigger ?? 'scheduled',
    started_at: startedAt.toISOString(),
    duration_ms: outcome.durationMs,
    response_status: outcome.status,
    response_headers: outcome.headers,
    response_body: outcome.body,
  }));
  await ctx.sql`
    with done as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, delivery_id text, subscription_id text, attempt int,
        trigger text, started_at timestamptz, duration_ms int, response_status int, response_headers jsonb, response_body text)
    ), attempts as (
      insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, response_headers, response_body)
      select id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, response_headers, response_body from done
    ), deliveries as (
      -- The ids again as a list: the planner cannot see into the jsonb and would scan the whole table.
      update webhook_deliveries d set status = 'succeeded', claimed_until = null, last_attempt_at = done.started_at, next_attempt_at = null, updated_at = now()
      from done where d.id = done.delivery_id and d.id = any(string_to_array(${rows.map((r) => r.delivery_id).join(',')}, ','))
    )
    update webhook_subscriptions set failing_since = null
    where id = any(string_to_array(${[...new Set(rows.map((r) => r.subscription_id))].join(',')}, ',')) and failing_since is not null`;
}

async function recordAttempt(ctx: Ctx, claimed: Claimed, input: DeliverJob, startedAt: Date, outcome: PostOutcome): Promise<AttemptResult> {
  const ok = outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.kind === 'response' && outcome.status === 410;
  const retryAfter =
    outcome.kind === 'response' && (outcome.status === 429 || outcome.status === 503)
      ? parseRetryAfter(outcome.headers['retry-after'])
      : undefined;
  const delay = ok || gone ? undefined : nextRetryDelay(input.attempt, claimed.environment, ctx.env, retryAfter);
  const result: AttemptResult = ok ? 'succeeded' : delay === undefined ? 'failed' : 'retrying';
  const subscriptionId = input.subscription_id;

  await withTransaction(ctx, async (tx) => {
    await tx.db.insert(webhookAttempts).values({
      id: newId(),
      deliveryId: claimed.id,
      attempt: input.attempt,
      trigger: input.trigger ?? 'scheduled',
      startedAt,
      durationMs: outcome.durationMs,
      responseStatus: outcome.kind === 'response' ? outcome.status : null,
      responseHeaders: outcome.kind === 'response' ? outcome.headers : null,
      responseBody: outcome.kind === 'response' ? outcome.body : null,
      errorKind: ok ? null : outcome.kind === 'response' ? 'http_status' : outcome.errorKind,
      errorMessage: ok ? null : outcome.kind === 'response' ? `HTTP ${outcome.status}` : outcome.message,
    });
    await tx.db
      .update(webhookDeliveries)
      .set({
        status: result === 'retrying' ? 'pending' : result === 'succeeded' ? 'succeeded' : 'failed',
        claimedUntil: null,
        lastAttemptAt: startedAt,
        nextAttemptAt: delay === undefined ? null : new Date(Date.now() + delay * 1000),
        updatedAt: new Date(),
      })
      .where(eq(webhookDeliveries.id, claimed.id));
    if (delay !== undefined) {
      const job: DeliverJob = { delivery_id: claimed.id, subscription_id: subscriptionId, attempt: input.attempt + 1 };
      await enqueue(tx, DELIVER, job, { startAfterSeconds: Math.max(1, Math.round(delay)) });
    }
    // 410: the receiver says the endpoint is gone. Otherwise, failing for the whole auto-disable period disables it.
    const autoDisableSeconds = Math.round(ctx.env.WEBHOOK_AUTO_DISABLE_AFTER_HOURS * 3600);
    await tx.db.execute(sql`
      update ${webhookSubscriptions} set
        failing_since = coalesce(failing_since, ${startedAt.toISOString()}::timestamptz),
        status = case when ${gone} or coalesce(failing_since, now()) < now() - make_interval(secs => ${autoDisableSeconds}) then 'disabled'::webhook_subscription_status else status end,
        disabled_reason = case when status = 'disabled' then disabled_reason when ${gone} then 'gone'
          when coalesce(failing_since, now()) < now() - make_interval(secs => ${autoDisableSeconds}) then 'too_many_failures' else disabled_reason end,
        updated_at = case when status = 'enabled' and (${gone} or coalesce(failing_since, now()) < now() - make_interval(secs => ${autoDisableSeconds})) then now() else updated_at end
      where id = ${subscriptionId}`);
  });
  return result;
}
