import { eq } from 'drizzle-orm';
import { partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { findPartnerOrThrow } from './find';

type GoLiveStatus = (typeof partners.$inferSelect)['goLiveStatus'];
export type GoLiveDecision = 'request' | 'approve' | 'reject';

// The go-live review, one table: a partner asks after UAT, an operator approves or rejects what was
// asked; a rejected partner may ask again. Production credentials need `approved`.
const MOVES: Record<GoLiveDecision, { from: GoLiveStatus[]; to: GoLiveStatus }> = {
  request: { from: ['not_requested', 'rejected'], to: 'requested' },
  approve: { from: ['requested'], to: 'approved' },
  reject: { from: ['requested'], to: 'rejected' },
};

export async function decideGoLive({ ctx, input }: { ctx: Ctx; input: { partnerId: string; decision: GoLiveDecision } }) {
  const move = MOVES[input.decision];
  return withTransaction(ctx, async (tx) => {
    const partner = await findPartnerOrThrow(tx, input.partnerId, true);
    if (!move.from.includes(partner.goLiveStatus)) {
      throw new ConflictError('invalid_go_live_transition', `Cannot ${input.decision} go-live: the review is '${partner.goLiveStatus}'.`);
    }
    await tx.db.update(partners).set({ goLiveStatus: move.to }).where(eq(partners.id, partner.id));
    await recordAudit(tx, {
      action: `partner.go_live.${input.decision}`,
      targetType: 'partner',
      targetId: partner.id,
      before: { go_live_status: partner.goLiveStatus },
      after: { go_live_status: move.to },
    });
    return { id: partner.id, go_live_status: move.to };
  });
}
