/**
 * One page of the children of each of several owners (a page of partners' credentials), read in one
 * query: `limit` rows per owner at most, ids below `after` when given. Newest first, keyset on ULIDs.
 */
export interface OwnedPage {
  ownerIds: readonly string[];
  limit: number;
  after?: string;
}

/** Rows (already newest first) per owner, every owner present, an owner without rows with none. */
export function groupByOwner<R, T>(
  ownerIds: readonly string[],
  rows: R[],
  ownerOf: (row: R) => string,
  map: (row: R) => T,
): Map<string, T[]> {
  const byOwner = new Map<string, T[]>(ownerIds.map((id) => [id, []]));
  for (const row of rows) byOwner.get(ownerOf(row))?.push(map(row));
  return byOwner;
}
