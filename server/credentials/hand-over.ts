import { and, eq, isNull } from 'drizzle-orm';
import { credentialHandovers, credentials } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { queueMail } from '../mail/queue';
import { newSessionToken, sessionTokenHash } from '../sessions/token';

/** The page a hand-over link opens, under the service's public base URL. */
export function handoverUrl(ctx: Ctx, token: string): string {
  const base = (ctx.env.PUBLIC_BASE_URL ?? `http://localhost:${ctx.env.PORT}`).replace(/\/+$/, '');
  return `${base}/handover/${token}`;
}

/**
 * Hands a credential's key over by e-mail: the message carries a one-time link, never the key. The key
 * waits sealed until the link is opened (then it is erased); any earlier link for the credential ends.
 * In the caller's transaction, with the mail's job: an issue that rolls back e-mails nothing.
 */
export async function handOverCredential({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { clientId: string; apiKey: string; email: string };
}): Promise<{ handoverId: string; email: string; expiresAt: Date }> {
  if (!ctx.secretBox) throw new Error('no secret encryption key in this process: a handed-over key waits sealed');
  const box = ctx.secretBox;
  return withTransaction(ctx, async (tx) => {
    const [credential] = await tx.db.select().from(credentials).where(eq(credentials.clientId, input.clientId));
    if (!credential) throw new NotFoundError('credential', input.clientId);
    const now = new Date();
    await tx.db
      .update(credentialHandovers)
      .set({ endedAt: now, keySealed: null })
      .where(
        and(eq(credentialHandovers.credentialId, credential.id), isNull(credentialHandovers.usedAt), isNull(credentialHandovers.endedAt)),
      );
    const token = newSessionToken();
    const handoverId = newId();
    const expiresAt = new Date(now.getTime() + ctx.env.HANDOVER_LINK_HOURS * 3_600_000);
    await tx.db.insert(credentialHandovers).values({
      id: handoverId,
      credentialId: credential.id,
      email: input.email,
      tokenHash: sessionTokenHash(token),
      keySealed: box.seal(input.apiKey),
      createdBy: ctx.actor.kind === 'operator' ? `operator:${ctx.actor.email ?? ctx.actor.operatorId}` : `${ctx.actor.kind}`,
      createdAt: now,
      expiresAt,
    });
    await queueMail(tx, {
      to: input.email,
      kind: 'handover',
      subject: `Your ${credential.environment} API credentials`,
      text: [
        `Your ${credential.environment} credentials for the Partner Delivery Platform are ready.`,
        '',
        `Open this link to see your X-Client-ID and API key. It works once, until ${expiresAt.toUTCString()}:`,
        handoverUrl(ctx, token),
        '',
        'Keep the key in a secrets manager. Never put it in a mobile app, a front-end bundle or source control.',
      ].join('\n'),
    });
    await recordAudit(tx, {
      action: 'credential.handover',
      targetType: 'credential',
      targetId: credential.clientId,
      after: { email: input.email, expires_at: expiresAt.toISOString() },
    });
    return { handoverId, email: input.email, expiresAt };
  });
}

export class HandoverUnavailableError extends ConflictError {}

/**
 * Opens a hand-over link: the credential's client id and key, once. A used, replaced, expired or
 * unknown link, or a revoked credential, is refused with its own code and says whom to ask.
 */
export async function revealHandover({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { token: string };
}): Promise<{ clientId: string; apiKey: string; environment: 'sandbox' | 'production' }> {
  if (!ctx.secretBox) throw new Error('no secret encryption key in this process');
  const box = ctx.secretBox;
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .select({ handover: credentialHandovers, credential: credentials })
      .from(credentialHandovers)
      .innerJoin(credentials, eq(credentials.id, credentialHandovers.credentialId))
      .where(eq(credentialHandovers.tokenHash, sessionTokenHash(input.token)))
      .for('update', { of: credentialHandovers });
    refuseUnusable(ctx, row);
    const { handover, credential } = row!;
    const apiKey = box.open(handover.keySealed!);
    await tx.db.update(credentialHandovers).set({ usedAt: new Date(), keySealed: null }).where(eq(credentialHandovers.id, handover.id));
    await recordAudit(tx, {
      action: 'credential.handover.open',
      targetType: 'credential',
      targetId: credential.clientId,
      after: { email: handover.email },
    });
    return { clientId: credential.clientId, apiKey, environment: credential.environment };
  });
}

type HandoverRow = { handover: typeof credentialHandovers.$inferSelect; credential: typeof credentials.$inferSelect };

/** Throws why a link cannot show its key (used, replaced, expired, unknown, revoked), with whom to ask. */
function refuseUnusable(ctx: Ctx, row: HandoverRow | undefined): void {
  const ask = `Ask your contact at the platform (${ctx.env.MAIL_FROM}) for a new link.`;
  if (!row) throw new HandoverUnavailableError('handover_unknown', `This link is not valid. ${ask}`);
  const { handover, credential } = row;
  if (handover.usedAt)
    throw new HandoverUnavailableError('handover_used', `This link was already used on ${handover.usedAt.toUTCString()}. ${ask}`);
  if (handover.endedAt) throw new HandoverUnavailableError('handover_replaced', `This link was replaced by a newer one. ${ask}`);
  if (handover.expiresAt.getTime() <= Date.now()) throw new HandoverUnavailableError('handover_expired', `This link has expired. ${ask}`);
  if (credential.revokedAt || !handover.keySealed)
    throw new HandoverUnavailableError('credential_revoked', `This credential was revoked. ${ask}`);
}

/**
 * Whether a link can still show its key, without showing or using it: the page says at once that a
 * link was used. Reading it changes nothing, so a mail scanner's visit costs the partner nothing.
 */
export async function handoverStatus({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { token: string };
}): Promise<{ environment: 'sandbox' | 'production' }> {
  const [row] = await ctx.db
    .select({ handover: credentialHandovers, credential: credentials })
    .from(credentialHandovers)
    .innerJoin(credentials, eq(credentials.id, credentialHandovers.credentialId))
    .where(eq(credentialHandovers.tokenHash, sessionTokenHash(input.token)));
  refuseUnusable(ctx, row);
  return { environment: row!.credential.environment };
}
