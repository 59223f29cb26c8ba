import { eq } from 'drizzle-orm';
import { partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { findPartnerOrThrow } from './find';
import { setTechnicalContactsInput, type TechnicalContacts } from './schemas';

/**
 * Replaces the partner's technical contacts (and, when given, its sandbox opt-in): by the partner
 * (PUT /partner/contacts, any of its keys: they are the partner's, not an environment's), by an
 * operator, or on an access request's approval. Audited with the lists before and after.
 */
export async function setTechnicalContacts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerId: string; emails: string[]; sandbox_notifications?: boolean };
}): Promise<TechnicalContacts> {
  const { emails, sandbox_notifications } = parseOrThrow(setTechnicalContactsInput, {
    emails: input.emails,
    sandbox_notifications: input.sandbox_notifications,
  });
  return withTransaction(ctx, async (tx) => {
    const before = await findPartnerOrThrow(tx, input.partnerId, true);
    const sandbox = sandbox_notifications ?? before.sandboxNotifications;
    await tx.db.update(partners).set({ technicalContacts: emails, sandboxNotifications: sandbox }).where(eq(partners.id, input.partnerId));
    await recordAudit(tx, {
      action: 'partner.contacts.set',
      targetType: 'partner',
      targetId: input.partnerId,
      before: { emails: before.technicalContacts, sandbox_notifications: before.sandboxNotifications },
      after: { emails, sandbox_notifications: sandbox },
    });
    return { object: 'technical_contacts', emails, sandbox_notifications: sandbox };
  });
}
