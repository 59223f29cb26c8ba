export interface FieldChange {
  field: string;
  /** undefined: absent on that side. */
  before: unknown;
  after: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The top-level fields whose values differ between an audit entry's before and after, in the order
 * they first appear (before's fields, then after's new ones). A side that is not an object (null on a
 * creation) counts as no fields.
 */
export function fieldDiff(before: unknown, after: unknown): FieldChange[] {
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  return [...new Set([...Object.keys(b), ...Object.keys(a)])]
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
    .map((field) => ({ field, before: b[field], after: a[field] }));
}

/** A value in one diff cell: text as is, anything else as compact JSON, an absent side as a dash. */
export function showValue(v: unknown): string {
  return v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
}
