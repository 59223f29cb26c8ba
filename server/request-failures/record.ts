import { requestFailures } from '@/db/schema';
import type { PartnerActor, Ctx } from '../context';

export interface FailedRequest {
  method: string;
  /** As the access log writes it (no query string, token-like segments redacted). */
  path: string;
  status: number;
  code: string;
  message: string;
}

/** Longer messages are cut: a validation message that lists every invalid field can run long. */
const MESSAGE_MAX = 500;

/**
 * Keeps a partner request that failed under its request id, so that the id a partner quotes from an error
 * body names what happened (server/lookup/find-by-id.ts). The caller decides which failures are kept
 * (server/http/partner-route.ts). Never throws: a request that already failed is not failed again by its
 * record; a record that could not be written is logged and lost.
 */
export async function recordFailedRequest({ ctx, input }: { ctx: Ctx<PartnerActor>; input: FailedRequest }): Promise<void> {
  const { partnerId, environment, clientId } = ctx.actor;
  try {
    await ctx.db
      .insert(requestFailures)
      .values({
        requestId: ctx.requestId,
        partnerId,
        environment,
        clientId,
        method: input.method,
        path: input.path,
        status: input.status,
        code: input.code,
        message: input.message.slice(0, MESSAGE_MAX),
        at: new Date(),
      })
      .onConflictDoNothing();
  } catch (err) {
    ctx.log.warn({ request_id: ctx.requestId, err }, 'failed request not recorded');
  }
}
