import { z } from 'zod';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError, ForbiddenError } from '../errors';
import { decideGoLive } from '../partners/go-live';
import { findPartnerOrThrow } from '../partners/find';
import { decideGoLiveInput } from '../partners/schemas';

export const requestGoLiveInput = z.strictObject({ note: decideGoLiveInput.shape.note });

export const goLiveRequestResource = z
  .object({
    partner_id: z.string(),
    go_live_status: z.enum(['not_requested', 'requested', 'approved', 'rejected']),
    go_live_note: z.string().nullable(),
  })
  .meta({ id: 'GoLiveRequest' });

/**
 * The partner asks for its go-live review with its sandbox key: the review it asks for is of its
 * sandbox record, and a production key means it is already live. Asking again while the review is
 * open answers 409 with the current state, so a retried request is harmless.
 */
export async function requestGoLive({ ctx, input }: { ctx: TenantCtx; input: z.input<typeof requestGoLiveInput> }) {
  if (ctx.actor.environment !== 'sandbox') {
    throw new ForbiddenError('sandbox_credentials_required', 'Ask for go-live with your sandbox credentials.');
  }
  const { partnerId } = ctx.actor;
  return withTransaction(ctx, async (tx) => {
    const partner = await findPartnerOrThrow(tx, partnerId, true);
    if (partner.goLiveStatus === 'requested' || partner.goLiveStatus === 'approved') {
      throw new ConflictError(
        `go_live_already_${partner.goLiveStatus}`,
        partner.goLiveStatus === 'requested' ? 'Your go-live review is already requested.' : 'Your go-live review is already approved.',
        { go_live_status: partner.goLiveStatus, go_live_note: partner.goLiveNote },
      );
    }
    const review = await decideGoLive({ ctx: tx, input: { partnerId, decision: 'request', note: input.note } });
    return { partner_id: review.id, go_live_status: review.go_live_status, go_live_note: review.go_live_note };
  });
}
