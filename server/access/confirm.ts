import { eq } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { sessionTokenHash } from '../sessions/token';
import { parseOrThrow } from '../validation';
import { confirmAccessInput } from './schemas';

export class AccessLinkUnavailableError extends ConflictError {}

/**
 * The contact confirms the address (a POST from the confirmation page, never the link's GET: mail
 * scanners fetch links): the request becomes `new` and operators see it. A used, expired or unknown
 * link is refused with its own code.
 */
export async function confirmAccessRequest({ ctx, input }: { ctx: Ctx; input: { token: string } }) {
  const { token } = parseOrThrow(confirmAccessInput, input);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .select()
      .from(accessRequests)
      .where(eq(accessRequests.confirmTokenHash, sessionTokenHash(token)))
      .for('update');
    if (!row) throw new AccessLinkUnavailableError('access_link_unknown', 'This confirmation link is not valid. Request access again.');
    if (row.confirmedAt)
      throw new AccessLinkUnavailableError('access_link_used', `This address was already confirmed on ${row.confirmedAt.toUTCString()}.`);
    if (!row.confirmExpiresAt || row.confirmExpiresAt.getTime() <= Date.now())
      throw new AccessLinkUnavailableError('access_link_expired', 'This confirmation link has expired. Request access again.');
    await tx.db.update(accessRequests).set({ status: 'new', confirmedAt: new Date() }).where(eq(accessRequests.id, row.id));
    await recordAudit(tx, { action: 'access_request.confirm', targetType: 'access_request', targetId: row.id });
    return { status: 'confirmed', message: 'Thank you: your address is confirmed and your request is with our team.' } as const;
  });
}
