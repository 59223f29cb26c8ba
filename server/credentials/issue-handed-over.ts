import { withTransaction, type Ctx } from '../context';
import { handOverCredential } from './hand-over';
import { emailOrThrow } from './handover-email';
import { issueCredential, type IssuedCredential } from './issue';

export interface HandedOverCredential {
  client_id: string;
  environment: IssuedCredential['environment'];
  handed_over_to: string;
  expires_at: Date;
}

/**
 * Issues a credential and hands its key over by e-mail in the same transaction: the answer carries the
 * client id and where the link went, never the key, and an issue that fails e-mails nothing.
 */
export async function issueHandedOverCredential({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerId: string; environment: 'sandbox' | 'production'; email: string };
}): Promise<HandedOverCredential> {
  const email = emailOrThrow(input.email);
  return withTransaction(ctx, async (tx) => {
    const issued = await issueCredential({ ctx: tx, input: { partnerId: input.partnerId, environment: input.environment } });
    const handover = await handOverCredential({ ctx: tx, input: { clientId: issued.client_id, apiKey: issued.api_key, email } });
    return { client_id: issued.client_id, environment: issued.environment, handed_over_to: handover.email, expires_at: handover.expiresAt };
  });
}
