import { and, eq, isNull } from 'drizzle-orm';
import { credentialHandovers, credentials } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { NotFoundError } from '../errors';
import { unixSeconds } from '../time';

/** Revokes a credential and ends its open hand-over links. Every process stops accepting it within CREDENTIAL_CACHE_TTL_MS (at most 5 s). */
export async function revokeCredential({ ctx, input }: { ctx: Ctx; input: { clientId: string } }) {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.select().from(credentials).where(eq(credentials.clientId, input.clientId)).for('update');
    if (!row) throw new NotFoundError('credential', input.clientId);
    if (row.revokedAt) return { client_id: row.clientId, revoked_at: unixSeconds(row.revokedAt) };
    const [updated] = await tx.db.update(credentials).set({ revokedAt: new Date() }).where(eq(credentials.id, row.id)).returning();
    // Its open hand-over links die with it, and the key they held sealed is erased.
    await tx.db
      .update(credentialHandovers)
      .set({ endedAt: updated!.revokedAt, keySealed: null })
      .where(and(eq(credentialHandovers.credentialId, row.id), isNull(credentialHandovers.usedAt), isNull(credentialHandovers.endedAt)));
    await recordAudit(tx, {
      action: 'credential.revoke',
      targetType: 'credential',
      targetId: row.clientId,
      before: { revoked_at: null },
      after: { revoked_at: updated!.revokedAt },
    });
    return { client_id: row.clientId, revoked_at: unixSeconds(updated!.revokedAt!) };
  });
}
