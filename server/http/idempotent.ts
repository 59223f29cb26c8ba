import { withTransaction, type TenantCtx } from '../context';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type StoredResponse } from '../idempotency/store';
import { errorResponse } from './error-response';
import type { PartnerServices } from './services';

interface Options {
  services: PartnerServices;
  ctx: TenantCtx;
  key: string;
  fingerprint: string;
  /** Runs the request's verb on `ctx` (inside the key's transaction) and answers. */
  execute(ctx: TenantCtx): Promise<Response>;
}

/**
 * A POST with an Idempotency-Key: the first request runs, and its answer is stored in the same
 * transaction as its change, so a change that committed always has its stored answer and a retry
 * can only replay it. A refused request (4xx) changed nothing; its answer is stored after. A failure
 * (5xx) stores nothing, so the client may retry with the same key.
 */
export async function runIdempotently({ services, ctx, key, fingerprint, execute }: Options): Promise<Response> {
  const scope = { partnerId: ctx.actor.partnerId, environment: ctx.actor.environment, key };
  const claim = await claimIdempotencyKey(services.db, scope, fingerprint, services.env.IDEMPOTENCY_TTL_HOURS, services.secretBox);
  if (claim.kind === 'replay') {
    return new Response(claim.response.body, {
      status: claim.response.status,
      headers: { ...claim.response.headers, 'idempotent-replayed': 'true' },
    });
  }
  try {
    return await withTransaction(ctx, async (tx) => {
      const { response, stored } = await settle(await execute(tx));
      await completeIdempotencyKey(tx.db, scope, stored, services.secretBox);
      return response;
    });
  } catch (error) {
    const failed = errorResponse(error, ctx.requestId, services.log);
    if (failed.status >= 500) {
      // Deletes the key only while it is in progress: had the change committed, so had its answer.
      await releaseIdempotencyKey(services.db, scope).catch(() => {});
      return failed;
    }
    const { response, stored } = await settle(failed);
    await completeIdempotencyKey(services.db, scope, stored, services.secretBox);
    return response;
  }
}

/** The answer as stored, and a fresh Response with the same text (a body can be read once). */
async function settle(response: Response): Promise<{ response: Response; stored: StoredResponse }> {
  const text = await response.text();
  // The version that rendered the answer is part of it: a replay is that answer again, in that version.
  const version = response.headers.get('x-service-version');
  const headers = {
    'content-type': response.headers.get('content-type') ?? 'application/json',
    ...(version ? { 'x-service-version': version } : {}),
  };
  return {
    response: new Response(text, { status: response.status, headers: response.headers }),
    stored: { status: response.status, body: text, headers },
  };
}
