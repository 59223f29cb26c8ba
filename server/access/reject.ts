import { eq } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorActor } from '../context';
import { queueMail } from '../mail/queue';
import { parseOrThrow } from '../validation';
import { presentAccessRequest } from './list';
import { deciderOf, lockUndecided } from './decide';
import { rejectAccessInput } from './schemas';

/** Rejects a confirmed request with a reason, which is e-mailed to the contact in the same transaction. */
export async function rejectAccessRequest({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { id: string; reason: string } }) {
  const { id, reason } = parseOrThrow(rejectAccessInput, input);
  return withTransaction(ctx, async (tx) => {
    const row = await lockUndecided(tx, id);
    const decided = { status: 'rejected' as const, reason, decidedBy: deciderOf(ctx), decidedAt: new Date() };
    const [updated] = await tx.db.update(accessRequests).set(decided).where(eq(accessRequests.id, row.id)).returning();
    // Our words and the operator's reason only: the name and company came from the public form, and a
    // URL written there would be a link in the mail and in the outbox (issue 21, item 7).
    await queueMail(tx, {
      to: row.contactEmail,
      kind: 'access_rejected',
      subject: 'Your request for sandbox access',
      text: [
        'Hello,',
        '',
        'We cannot give your company sandbox access to the Partner Delivery Platform at this time.',
        '',
        `Reason: ${reason}`,
        '',
        `You may reply to ${ctx.env.MAIL_FROM} with questions.`,
      ].join('\n'),
    });
    await recordAudit(tx, {
      action: 'access_request.reject',
      targetType: 'access_request',
      targetId: row.id,
      before: { status: 'new' },
      after: { status: 'rejected', reason },
    });
    return presentAccessRequest(updated!);
  });
}
