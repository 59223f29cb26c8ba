import { inArray } from 'drizzle-orm';
import { partners } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';

/**
 * Partners' names by id, for lists that name each row's partner (the console's deliveries, events, orders and
 * subscriptions in trouble): one statement for a page of rows. Ids of no partner are absent from the map.
 */
export async function partnerNames({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { ids: readonly string[] };
}): Promise<Map<string, string>> {
  if (input.ids.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: partners.id, name: partners.name })
    .from(partners)
    .where(inArray(partners.id, [...input.ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}
