import { and, desc, eq, ilike, lt, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { partners } from '@/db/schema';
import type { Ctx } from '../context';
import { onOlderVersion } from '../pins/of-partners';
import { isStorableText, parseOrThrow } from '../validation';
import { presentPartner, type PartnerSummary } from './present';

export const listPartnersInput = z.strictObject({
  search: z.string().trim().max(200).refine(isStorableText, 'text must not contain U+0000 or an unpaired surrogate').optional(),
  // The connection asks for one row more than its page, to learn whether another follows.
  limit: z.number().int().min(1).max(101),
  after: z.string().max(100).optional(),
  olderApiVersion: z.boolean().optional(),
});

/**
 * Partners newest first; `search` matches a name (case-insensitive substring) or an exact id; `olderApiVersion`,
 * only those that still speak a version older than the latest (server/pins/of-partners.ts).
 */
export async function listPartners({ ctx, input }: { ctx: Ctx; input: z.input<typeof listPartnersInput> }): Promise<PartnerSummary[]> {
  const { search, limit, after, olderApiVersion } = parseOrThrow(listPartnersInput, input);
  const where: SQL[] = [];
  if (olderApiVersion) where.push(onOlderVersion());
  if (search) where.push(or(eq(partners.id, search), ilike(partners.name, `%${search.replace(/[\\%_]/g, '\\$&')}%`))!);
  if (after) where.push(lt(partners.id, after));
  const rows = await ctx.db
    .select()
    .from(partners)
    .where(and(...where))
    .orderBy(desc(partners.id))
    .limit(limit);
  return rows.map((row) => presentPartner(ctx.env, row));
}
