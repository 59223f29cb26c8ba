import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { parseOrThrow } from '../validation';
import { findPartnerOrThrow } from './find';
import type { GoLiveStatus } from './present';
import { decideGoLiveInput } from './schemas';

export type GoLiveDecision = 'request' | 'approve' | 'reject';

// The go-live review, one table: a partner asks after UAT, an operator approves or rejects what was
// asked; a rejected partner may ask again. Production credentials need `approved`.
const MOVES: Record<GoLiveDecision, { from: GoLiveStatus[]; to: GoLiveStatus }> = {
  request: { from: ['not_requested', 'rejected'], to: 'requested' },
  approve: { from: ['requested'], to: 'approved' },
  reject: { from: ['requested'], to: 'rejected' },
};

export async function decideGoLive({ ctx, input }: { ctx: Ctx; input: z.input<typeof decideGoLiveInput> }) {
  const { partnerId, decision, note } = parseOrThrow(decideGoLiveInput, input);
  const move = MOVES[decision];
  const goLiveNote = note || null;
  return withTransaction(ctx, async (tx) => {
    const partner = await findPartnerOrThrow(tx, partnerId, true);
    if (!move.from.includes(partner.goLiveStatus)) {
      throw new ConflictError('invalid_go_live_transition', `Cannot ${decision} go-live: the review is '${partner.goLiveStatus}'.`);
    }
    await tx.db.update(partners).set({ goLiveStatus: move.to, goLiveNote }).where(eq(partners.id, partner.id));
    await recordAudit(tx, {
      action: `partner.go_live.${decision}`,
      targetType: 'partner',
      targetId: partner.id,
      before: { go_live_status: partner.goLiveStatus, go_live_note: partner.goLiveNote },
      after: { go_live_status: move.to, go_live_note: goLiveNote },
    });
    return { id: partner.id, go_live_status: move.to, go_live_note: goLiveNote };
  });
}
