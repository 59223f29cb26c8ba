import { newId } from '../ids';
import { z } from 'zod';
import { credentials } from '@/db/schema';
import { generateApiKey } from '../auth/api-keys';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { parseOrThrow } from '../validation';
import { findPartnerOrThrow } from '../partners/find';

export const issueCredentialInput = z.strictObject({
  partnerId: z.string().min(1),
  environment: z.enum(['sandbox', 'production']),
});

export interface IssuedCredential {
  client_id: string;
  /** Shown once: only its SHA-256 is stored. */
  api_key: string;
  environment: 'sandbox' | 'production';
}

export async function issueCredential({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.input<typeof issueCredentialInput>;
}): Promise<IssuedCredential> {
  const { partnerId, environment } = parseOrThrow(issueCredentialInput, input);
  return withTransaction(ctx, async (tx) => {
    // Locked so a concurrent go-live rejection cannot slip between the check and the insert.
    const partner = await findPartnerOrThrow(tx, partnerId, true);
    if (environment === 'production' && partner.goLiveStatus !== 'approved') {
      throw new ConflictError(
        'go_live_required',
        `Production credentials need an approved go-live review; this partner's is '${partner.goLiveStatus}'.`,
      );
    }
    const key = generateApiKey(environment);
    await tx.db
      .insert(credentials)
      .values({ id: newId(), clientId: key.clientId, partnerId, environment, keyHash: key.keyHash, keyLast4: key.keyLast4 });
    await recordAudit(tx, {
      action: 'credential.issue',
      targetType: 'credential',
      targetId: key.clientId,
      after: { partner_id: partnerId, environment, key_last4: key.keyLast4 },
    });
    return { client_id: key.clientId, api_key: key.apiKey, environment };
  });
}
