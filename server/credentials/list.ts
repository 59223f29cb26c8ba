import { credentials } from '@/db/schema';
import type { Ctx, Environment } from '../context';
import { pagePerOwner, type OwnedPage } from '../owned-page';

/** What operators may see of a credential: never the key or its hash. */
export interface CredentialSummary {
  id: string;
  partnerId: string;
  clientId: string;
  environment: Environment;
  /** The key's last four characters, to tell keys apart. */
  keyLast4: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The credentials of several partners at once, newest first, up to `limit` each (one query for a page of partners). */
export async function listCredentials({ ctx, input }: { ctx: Ctx; input: OwnedPage }): Promise<Map<string, CredentialSummary[]>> {
  const t = credentials;
  const fields = {
    id: t.id,
    partnerId: t.partnerId,
    clientId: t.clientId,
    environment: t.environment,
    keyLast4: t.keyLast4,
    createdAt: t.createdAt,
    revokedAt: t.revokedAt,
  };
  return pagePerOwner<CredentialSummary>(ctx, { table: t, fields, ownerKey: 'partnerId' }, input);
}
