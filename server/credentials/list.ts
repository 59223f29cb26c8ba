import { and, desc, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { credentials } from '@/db/schema';
import type { Ctx, Environment } from '../context';
import { groupByOwner, type OwnedPage } from '../owned-page';

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
  const where: SQL[] = [inArray(credentials.partnerId, [...input.ownerIds])];
  if (input.after) where.push(lt(credentials.id, input.after));
  const ranked = ctx.db
    .select({
      id: credentials.id,
      partnerId: credentials.partnerId,
      clientId: credentials.clientId,
      environment: credentials.environment,
      keyLast4: credentials.keyLast4,
      createdAt: credentials.createdAt,
      revokedAt: credentials.revokedAt,
      rank: sql<number>`row_number() over (partition by ${credentials.partnerId} order by ${credentials.id} desc)`.as('rank'),
    })
    .from(credentials)
    .where(and(...where))
    .as('ranked');
  const rows = await ctx.db.select().from(ranked).where(lte(ranked.rank, input.limit)).orderBy(desc(ranked.id));
  return groupByOwner(
    input.ownerIds,
    rows,
    (r) => r.partnerId,
    ({ rank: _rank, ...summary }) => summary,
  );
}
