import { eq } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorActor } from '../context';
import { handOverCredential } from '../credentials/hand-over';
import { issueCredential } from '../credentials/issue';
import { createPartner } from '../partners/create';
import { setTechnicalContacts } from '../partners/set-contacts';
import { presentAccessRequest } from './list';
import { deciderOf, lockUndecided } from './decide';

/**
 * Approves a confirmed request: the partner (named after the company, the contact its first technical
 * contact), its sandbox credential, and the credential handed over to the contact by e-mail, all in one
 * transaction, so a failure leaves the request `new` and sends nothing.
 */
export async function approveAccessRequest({ ctx, input }: { ctx: Ctx<OperatorActor>; input: { id: string } }) {
  return withTransaction(ctx, async (tx) => {
    const row = await lockUndecided(tx, input.id);
    const partner = await createPartner({ ctx: tx, input: { name: row.company } });
    // The contact who asked is the partner's first technical contact (webhook failure notices).
    await setTechnicalContacts({ ctx: tx, input: { partnerId: partner.id, emails: [row.contactEmail] } });
    const issued = await issueCredential({ ctx: tx, input: { partnerId: partner.id, environment: 'sandbox' } });
    await handOverCredential({ ctx: tx, input: { clientId: issued.client_id, apiKey: issued.api_key, email: row.contactEmail } });
    const decided = { status: 'approved' as const, partnerId: partner.id, decidedBy: deciderOf(ctx), decidedAt: new Date() };
    const [updated] = await tx.db.update(accessRequests).set(decided).where(eq(accessRequests.id, row.id)).returning();
    await recordAudit(tx, {
      action: 'access_request.approve',
      targetType: 'access_request',
      targetId: row.id,
      before: { status: 'new' },
      after: { status: 'approved', partner_id: partner.id, client_id: issued.client_id },
    });
    return presentAccessRequest(updated!);
  });
}
