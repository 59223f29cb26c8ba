import { and, count, eq, gt, min, sql } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { RateLimitedError } from '../errors';
import { newId } from '../ids';
import { queueMail } from '../mail/queue';
import { newSessionToken, sessionTokenHash } from '../sessions/token';
import { parseOrThrow } from '../validation';
import { accessConfirmUrl } from './links';
import { accessRequestInput, type AccessRequestInput } from './schemas';

// A person asks once or twice; a script asks hundreds of times. Counted in the table itself (its
// (source_address, created_at) index), so every web process shares the count and a restart forgets nothing.
export const ACCESS_REQUESTS_PER_WINDOW = 5;
export const ACCESS_REQUEST_WINDOW_MS = 3_600_000;
export const ACCESS_CONFIRM_HOURS = 24;

export const CONFIRMATION_SENT = {
  status: 'confirmation_sent',
  message: 'If the address can receive mail, a confirmation link is on its way. Open it within 24 hours to send the request.',
} as const;

/**
 * Stores a request for sandbox access as `unconfirmed` and e-mails its contact a one-time link (only
 * the token's SHA-256 is kept). The answer is the same whatever is already known about the address or
 * the company: the form must not tell anyone who else asked.
 */
export async function requestAccess({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: AccessRequestInput & { sourceAddress: string };
}): Promise<typeof CONFIRMATION_SENT> {
  const { sourceAddress, ...fields } = input;
  const body = parseOrThrow(accessRequestInput, fields);
  return withTransaction(ctx, async (tx) => {
    // Serialises one address's requests, so a burst in parallel cannot all read "4 so far".
    await tx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'access_request:' + sourceAddress}, 0))`);
    const since = new Date(Date.now() - ACCESS_REQUEST_WINDOW_MS);
    const [recent] = await tx.db
      .select({ n: count(), oldest: min(accessRequests.createdAt) })
      .from(accessRequests)
      .where(and(eq(accessRequests.sourceAddress, sourceAddress), gt(accessRequests.createdAt, since)));
    if (recent && recent.n >= ACCESS_REQUESTS_PER_WINDOW && recent.oldest) {
      const retryMs = recent.oldest.getTime() + ACCESS_REQUEST_WINDOW_MS - Date.now();
      throw new RateLimitedError(Math.max(1, Math.ceil(retryMs / 1000)), {});
    }
    const token = newSessionToken();
    const now = new Date();
    const id = newId();
    await tx.db.insert(accessRequests).values({
      id,
      company: body.company,
      contactName: body.contact_name,
      contactEmail: body.contact_email,
      website: body.website ?? null,
      expectedMonthlyOrders: body.expected_monthly_orders ?? null,
      useCase: body.use_case,
      status: 'unconfirmed',
      confirmTokenHash: sessionTokenHash(token),
      confirmExpiresAt: new Date(now.getTime() + ACCESS_CONFIRM_HOURS * 3_600_000),
      sourceAddress,
      createdAt: now,
    });
    await queueMail(tx, {
      to: body.contact_email,
      kind: 'access_confirm',
      subject: 'Confirm your request for sandbox access',
      text: [
        `Hello ${body.contact_name},`,
        '',
        `We received a request for sandbox access to the Partner Delivery Platform for ${body.company}.`,
        `Open this link and press the button to confirm your address. It works once, within ${ACCESS_CONFIRM_HOURS} hours:`,
        accessConfirmUrl(ctx, token),
        '',
        'If you did not ask for access, ignore this message: nothing happens without the confirmation.',
      ].join('\n'),
    });
    await recordAudit(tx, {
      action: 'access_request.create',
      targetType: 'access_request',
      targetId: id,
      after: { company: body.company },
    });
    return CONFIRMATION_SENT;
  });
}
