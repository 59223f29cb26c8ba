import { and, desc, eq, isNull } from 'drizzle-orm';
import { credentialHandovers, credentials } from '@/db/schema';
import { generateApiKey } from '../auth/api-keys';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError, NotFoundError } from '../errors';
import { handOverCredential } from './hand-over';
import { emailOrThrow } from './handover-email';

export interface ResentHandover {
  client_id: string;
  handed_over_to: string;
  expires_at: Date;
  /** True when the key had been shown (or was never sealed) and a new one replaced it. */
  key_replaced: boolean;
}

/**
 * Sends a new hand-over link; the old one dies. While the key was never shown, the new link carries the
 * same key (still sealed). Once shown, nobody but its reader holds it, so a new link needs a new key:
 * the credential keeps its client id, its key is replaced and the old one stops working (within the
 * credential cache's few seconds). The address defaults to the latest link's.
 */
export async function resendHandover({ ctx, input }: { ctx: Ctx; input: { clientId: string; email?: string } }): Promise<ResentHandover> {
  if (!ctx.secretBox) throw new Error('no secret encryption key in this process: a handed-over key waits sealed');
  const box = ctx.secretBox;
  return withTransaction(ctx, async (tx) => {
    const [credential] = await tx.db.select().from(credentials).where(eq(credentials.clientId, input.clientId)).for('update');
    if (!credential) throw new NotFoundError('credential', input.clientId);
    if (credential.revokedAt) throw new ConflictError('credential_revoked', 'This credential is revoked: issue a new one instead.');
    // Locked, as revealHandover locks it: a reveal in flight commits first, and this then reads the link
    // as used (key erased) and replaces the key. Unlocked, it read the sealed key the reveal had just shown
    // and put it on the new link.
    const [open] = await tx.db
      .select()
      .from(credentialHandovers)
      .where(
        and(eq(credentialHandovers.credentialId, credential.id), isNull(credentialHandovers.usedAt), isNull(credentialHandovers.endedAt)),
      )
      .orderBy(desc(credentialHandovers.id))
      .limit(1)
      .for('update');
    const [latest] = await tx.db
      .select({ email: credentialHandovers.email })
      .from(credentialHandovers)
      .where(eq(credentialHandovers.credentialId, credential.id))
      .orderBy(desc(credentialHandovers.id))
      .limit(1);
    const email = input.email !== undefined ? emailOrThrow(input.email) : latest?.email;
    if (!email)
      throw new ConflictError('handover_email_required', 'This credential was never handed over: give the address to send the link to.');
    let apiKey: string;
    const keyReplaced = !open?.keySealed;
    if (open?.keySealed) {
      apiKey = box.open(open.keySealed);
    } else {
      const key = generateApiKey(credential.environment);
      apiKey = key.apiKey;
      await tx.db.update(credentials).set({ keyHash: key.keyHash, keyLast4: key.keyLast4 }).where(eq(credentials.id, credential.id));
      await recordAudit(tx, {
        action: 'credential.key_replace',
        targetType: 'credential',
        targetId: credential.clientId,
        before: { key_last4: credential.keyLast4 },
        after: { key_last4: key.keyLast4 },
      });
    }
    const handover = await handOverCredential({ ctx: tx, input: { clientId: credential.clientId, apiKey, email } });
    return { client_id: credential.clientId, handed_over_to: handover.email, expires_at: handover.expiresAt, key_replaced: keyReplaced };
  });
}
