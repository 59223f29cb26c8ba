import { withTransaction, type TenantCtx } from '../context';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type StoredResponse } from '../idempotency/store';
import { errorAnswer } from './error-response';
import type { Answer } from './exchange';
import type { PartnerServices } from './services';

interface Options {
  services: PartnerServices;
  ctx: TenantCtx;
  key: string;
  fingerprint: string;
  /** Runs the request's verb on `ctx` (inside the key's transaction) and answers. */
  execute(ctx: TenantCtx): Promise<Answer>;
}

/**
 * A POST with an Idempotency-Key: the first request runs, and its answer is stored in the same
 * transaction as its change, so a change that committed always has its stored answer and a retry
 * can only replay it. A refused request (4xx) changed nothing; its answer is stored after. A failure
 * (5xx) stores nothing, so the client may retry with the same key.
 */
export async function runIdempotently({ services, ctx, key, fingerprint, execute }: Options): Promise<Answer> {
  const scope = { partnerId: ctx.actor.partnerId, environment: ctx.actor.environment, key };
  const claim = await claimIdempotencyKey(services.db, scope, fingerprint, services.env.IDEMPOTENCY_TTL_HOURS, services.secretBox);
  if (claim.kind === 'replay') {
    return {
      status: claim.response.status,
      headers: { ...claim.response.headers, 'idempotent-replayed': 'true' },
      body: claim.response.body,
    };
  }
  try {
    return await withTransaction(ctx, async (tx) => {
      const answer = await execute(tx);
      await completeIdempotencyKey(tx.db, scope, stored(answer), services.secretBox);
      return answer;
    });
  } catch (error) {
    const failed = errorAnswer(error, ctx.requestId, services.log);
    if (failed.status >= 500) {
      // Deletes the key only while it is in progress: had the change committed, so had its answer.
      await releaseIdempotencyKey(services.db, scope).catch(() => {});
      return failed;
    }
    await completeIdempotencyKey(services.db, scope, stored(failed), services.secretBox);
    return failed;
  }
}

/** The answer as stored: its status, text, type and the version that rendered it (a replay is that answer again, in that version). */
function stored(answer: Answer): StoredResponse {
  const version = answer.headers['x-service-version'];
  return {
    status: answer.status,
    body: answer.body ?? '',
    headers: {
      'content-type': answer.headers['content-type'] ?? 'application/json',
      ...(version ? { 'x-service-version': version } : {}),
    },
  };
}
