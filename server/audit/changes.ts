/**
 * The fields that differ between two views of a record, as the audit log's before and after: an
 * update that changes one field records that field, not the whole resource. Compared as JSON.
 */
export function changedFields<T extends Record<string, unknown>>(
  before: T,
  after: T,
  ignore: readonly (keyof T)[] = [],
): { before: Partial<T>; after: Partial<T> } {
  const was: Partial<T> = {};
  const now: Partial<T> = {};
  for (const key of Object.keys({ ...before, ...after }) as (keyof T)[]) {
    if (ignore.includes(key) || JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    was[key] = before[key];
    now[key] = after[key];
  }
  return { before: was, after: now };
}
