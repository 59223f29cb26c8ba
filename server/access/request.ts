import { and, count, eq, gt, gte, min, sql } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { clientBucket } from '../auth/cidr';
import { withTransaction, type Ctx } from '../context';
import { RateLimitedError } from '../errors';
import { idFloor, newId } from '../ids';
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
// Mails to one recipient per day, whoever asks: past it a request is answered as usual and dropped, so
// the form can neither flood one inbox nor tell anyone that the address was already asked for.
export const ACCESS_MAILS_PER_RECIPIENT = 3;
const RECIPIENT_WINDOW_MS = 24 * 3_600_000;

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
  const client = clientBucket(sourceAddress);
  // Refused before any lock once a budget is spent: a flood then waits on nothing and holds no
  // connection longer than a count. The counts are taken again under the locks.
  await refuseOverClientLimit(ctx, client);
  await refuseOverGlobalLimit(ctx);
  return withTransaction(ctx, async (tx) => {
    // Serialises one client's requests, so a burst in parallel cannot all read "4 so far".
    await tx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'access_request:' + client}, 0))`);
    await refuseOverClientLimit(tx, client);
    // Then all clients together, counted again under one lock: twenty addresses queued 100 mails to
    // strangers in 2 s before this bound.
    await tx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended('access_request:all', 0))`);
    await refuseOverGlobalLimit(tx);
    if (await recipientHadEnough(tx, body.contact_email)) {
      ctx.log.info({ kind: 'access_confirm' }, 'access request dropped: its recipient already had the daily confirmations');
      return CONFIRMATION_SENT;
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
      sourceAddress: client,
      createdAt: now,
    });
    await queueMail(tx, {
      to: body.contact_email,
      kind: 'access_confirm',
      subject: 'Confirm your request for sandbox access',
      // Only our words: the fields are a stranger's, and this goes to an address nobody has confirmed yet.
      text: [
        'Hello,',
        '',
        'We received a request for sandbox access to the Partner Delivery Platform naming this address as its contact.',
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

async function refuseOverClientLimit(ctx: Ctx, client: string): Promise<void> {
  const since = new Date(Date.now() - ACCESS_REQUEST_WINDOW_MS);
  const [recent] = await ctx.db
    .select({ n: count(), oldest: min(accessRequests.createdAt) })
    .from(accessRequests)
    .where(and(eq(accessRequests.sourceAddress, client), gt(accessRequests.createdAt, since)));
  if (recent && recent.n >= ACCESS_REQUESTS_PER_WINDOW && recent.oldest) refuseUntil(recent.oldest, ACCESS_REQUEST_WINDOW_MS);
}

async function refuseOverGlobalLimit(ctx: Ctx): Promise<void> {
  const since = new Date(Date.now() - ACCESS_REQUEST_WINDOW_MS);
  const [recent] = await ctx.db
    .select({ n: count(), oldest: min(accessRequests.createdAt) })
    .from(accessRequests)
    .where(gte(accessRequests.id, idFloor(since)));
  if (recent && recent.n >= ctx.env.ACCESS_REQUESTS_PER_HOUR && recent.oldest) refuseUntil(recent.oldest, ACCESS_REQUEST_WINDOW_MS);
}

async function recipientHadEnough(ctx: Ctx, email: string): Promise<boolean> {
  await ctx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'access_request:to:' + email.toLowerCase()}, 0))`);
  const [sent] = await ctx.db
    .select({ n: count() })
    .from(accessRequests)
    .where(
      and(
        gte(accessRequests.id, idFloor(new Date(Date.now() - RECIPIENT_WINDOW_MS))),
        eq(sql`lower(${accessRequests.contactEmail})`, email.toLowerCase()),
      ),
    );
  return (sent?.n ?? 0) >= ACCESS_MAILS_PER_RECIPIENT;
}

function refuseUntil(oldest: Date, windowMs: number): never {
  const retryMs = oldest.getTime() + windowMs - Date.now();
  throw new RateLimitedError(Math.max(1, Math.ceil(retryMs / 1000)), {});
}
