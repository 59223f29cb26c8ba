import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { goLiveDecisions, partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { handOverCredential } from '../credentials/hand-over';
import { issueCredential } from '../credentials/issue';
import { requesterOf, withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { newId } from '../ids';
import { queueMail } from '../mail/queue';
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
  const { partnerId, decision, note, email } = parseOrThrow(decideGoLiveInput, input);
  const move = MOVES[decision];
  const goLiveNote = note || null;
  return withTransaction(ctx, async (tx) => {
    const partner = await findPartnerOrThrow(tx, partnerId, true);
    if (!move.from.includes(partner.goLiveStatus)) {
      throw new ConflictError('invalid_go_live_transition', `Cannot ${decision} go-live: the review is '${partner.goLiveStatus}'.`);
    }
    await tx.db.update(partners).set({ goLiveStatus: move.to, goLiveNote }).where(eq(partners.id, partner.id));
    await tx.db.insert(goLiveDecisions).values({
      id: newId(),
      partnerId: partner.id,
      fromStatus: partner.goLiveStatus,
      toStatus: move.to,
      note: goLiveNote,
      actor: requesterOf(ctx.actor),
      at: new Date(),
    });
    await recordAudit(tx, {
      action: `partner.go_live.${decision}`,
      targetType: 'partner',
      targetId: partner.id,
      before: { go_live_status: partner.goLiveStatus, go_live_note: partner.goLiveNote },
      after: { go_live_status: move.to, go_live_note: goLiveNote },
    });
    let handover: { client_id: string; email: string; expires_at: Date } | undefined;
    if (email && decision === 'approve') {
      const issued = await issueCredential({ ctx: tx, input: { partnerId: partner.id, environment: 'production' } });
      const sent = await handOverCredential({ ctx: tx, input: { clientId: issued.client_id, apiKey: issued.api_key, email } });
      handover = { client_id: issued.client_id, email, expires_at: sent.expiresAt };
    }
    if (email && decision === 'reject') {
      await queueMail(tx, {
        to: email,
        kind: 'go_live_rejected',
        subject: 'Your go-live review',
        text: [
          // The partner by id, not name: a partner approved from an access request is named by the public form.
          `The go-live review of your Partner Delivery Platform account (partner ${partner.id}) was not approved this time.`,
          '',
          goLiveNote ? `The reviewer's reason: ${goLiveNote}` : 'The reviewer gave no reason.',
          '',
          'Keep testing in the sandbox and ask again (POST /partner/go-live-request) when it is ready.',
        ].join('\n'),
      });
    }
    return { id: partner.id, go_live_status: move.to, go_live_note: goLiveNote, handover };
  });
}
