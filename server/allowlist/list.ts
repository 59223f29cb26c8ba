import { and, desc, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { allowlistEntries } from '@/db/schema';
import type { Ctx } from '../context';
import { groupByOwner, type OwnedPage } from '../owned-page';

export interface AllowlistEntrySummary {
  id: string;
  partnerId: string;
  cidr: string;
  label: string | null;
  createdAt: Date;
}

/** The IP allowlists of several partners at once, newest entry first, up to `limit` each. */
export async function listAllowlistEntries({ ctx, input }: { ctx: Ctx; input: OwnedPage }): Promise<Map<string, AllowlistEntrySummary[]>> {
  const where: SQL[] = [inArray(allowlistEntries.partnerId, [...input.ownerIds])];
  if (input.after) where.push(lt(allowlistEntries.id, input.after));
  const ranked = ctx.db
    .select({
      id: allowlistEntries.id,
      partnerId: allowlistEntries.partnerId,
      cidr: allowlistEntries.cidr,
      label: allowlistEntries.label,
      createdAt: allowlistEntries.createdAt,
      rank: sql<number>`row_number() over (partition by ${allowlistEntries.partnerId} order by ${allowlistEntries.id} desc)`.as('rank'),
    })
    .from(allowlistEntries)
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
