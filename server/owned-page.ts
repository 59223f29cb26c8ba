import { and, desc, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Ctx } from './context';

/**
 * One page of the children of each of several owners (a page of partners' credentials), read in one
 * query: `limit` rows per owner at most, ids below `after` when given. Newest first, keyset on ULIDs.
 */
export interface OwnedPage {
  ownerIds: readonly string[];
  limit: number;
  after?: string;
}

interface Source<T> {
  table: PgTable;
  /** The columns to read, keyed as the rows come back; `id` and the owner's column among them. */
  fields: { [K in keyof T]: AnyPgColumn };
  ownerKey: keyof T & string;
  /** Further conditions (e.g. not deleted). */
  where?: SQL;
}

/**
 * Reads an OwnedPage in one statement (row_number() over each owner), so a page of 50 partners with
 * their credentials is two queries, not 51. Every owner is in the answer, one without rows with none.
 */
export async function pagePerOwner<T extends { id: string }>(ctx: Ctx, source: Source<T>, input: OwnedPage): Promise<Map<string, T[]>> {
  // Typed by the caller's T; the query itself is built over plain columns.
  const fields = source.fields as Record<string, AnyPgColumn>;
  const owner = fields[source.ownerKey]!;
  const id = fields.id!;
  const conditions = [inArray(owner, [...input.ownerIds]), source.where, input.after ? lt(id, input.after) : undefined];
  const ranked = ctx.db
    .select({ ...fields, rank: sql<number>`row_number() over (partition by ${owner} order by ${id} desc)`.as('rank') })
    .from(source.table)
    .where(and(...conditions))
    .as('ranked');
  const rows = (await ctx.db
    .select()
    .from(ranked)
    .where(lte(ranked.rank, input.limit))
    .orderBy(desc((ranked as unknown as Record<string, AnyPgColumn>).id!))) as Record<string, unknown>[];
  const byOwner = new Map<string, T[]>(input.ownerIds.map((ownerId) => [ownerId, []]));
  for (const { rank: _rank, ...row } of rows) byOwner.get(String(row[source.ownerKey]))?.push(row as T);
  return byOwner;
}
