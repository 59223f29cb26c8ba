import { sql, type SQL } from 'drizzle-orm';
import type postgres from 'postgres';

// `= any(...)` over a list as ONE text parameter, split by Postgres: the statement's text is the same
// whatever the list's length, so postgres.js prepares it once (an `in ($1, $2, ...)` list is a new
// statement for every length), and no array type has to be inferred for a parameter. Only for values
// that cannot hold a comma: ULIDs, event types.

function joined(values: readonly string[]): string {
  for (const v of values) if (v.includes(',')) throw new Error(`a list value with a comma cannot be passed as one: ${v}`);
  return values.join(',');
}

/** `column = ${anyOf(ids)}` in a Drizzle statement. */
export function anyOf(values: readonly string[]): SQL {
  return sql`any(string_to_array(${joined(values)}, ','))`;
}

/** The same in a postgres.js statement (the hot paths written as prepared statements). */
export function anyOfRaw(pg: postgres.Sql, values: readonly string[]): postgres.PendingQuery<postgres.Row[]> {
  return pg`any(string_to_array(${joined(values)}, ','))`;
}
