/**
 * JSON text whose bytes depend only on the value, never on the order code inserted keys in: every
 * object's keys in Postgres jsonb's own order (shorter first, then by their UTF-8 bytes), with
 * JavaScript's one exception that integer-like keys ("2", "10") come first, ascending, in any object.
 *
 * Why this order: a webhook body used to be JSON.stringify of the envelope as jsonb gave it back, which
 * is exactly this (jsonb sorts the keys; JSON.parse inserts them in that order; JavaScript enumerates
 * integer-like keys first). So an event rendered in the first version is byte for byte what was sent
 * before versions existed, and whatever a version change's code does to a resource, the same value
 * always makes the same bytes: a retry signs and sends exactly what the first attempt did.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? sorted(v as object) : v));
}

function sorted(object: object): Record<string, unknown> {
  const keys = Object.keys(object);
  if (keys.length < 2) return object as Record<string, unknown>;
  keys.sort(compareKeys);
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = (object as Record<string, unknown>)[key];
  return out;
}

// Any code unit above U+007F makes a key non-ASCII (and its UTF-8 longer than its UTF-16 length).
const NON_ASCII = /[^\p{ASCII}]/u;

/** jsonb's key order: byte length, then bytes (an ASCII key's length and code units are its bytes). */
export function compareKeys(a: string, b: string): number {
  if (!NON_ASCII.test(a) && !NON_ASCII.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length - y.length || Buffer.compare(x, y);
}
