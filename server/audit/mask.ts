/** What an audit row holds in place of a secret. */
export const MASKED = '[masked]';

// Names whose value is a secret wherever they sit in a before/after document. Compared after folding
// camelCase to snake_case and lower-casing (apiKey, API_KEY and api_key are one name). `key` alone is a
// secret (an API key); key_last4 or key_id are not.
const SECRET_NAMES = new Set([
  'secret',
  'password',
  'password_hash',
  'api_key',
  'key',
  'key_hash',
  'token',
  'token_hash',
  'signature',
  'secret_sealed',
  'sealed',
  'authorization',
  'cookie',
]);
// ...and any name that says it holds one: webhook_secret, previous_secrets, new_password, session_token.
const SECRET_WORDS = /(^|_)(secrets?|passwords?|passwd|tokens?|signatures?|api_keys?|sealed)(_|$)|_hash$/;

function fold(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

export function isSecretName(name: string): boolean {
  const folded = fold(name);
  return SECRET_NAMES.has(folded) || SECRET_WORDS.test(folded);
}

/**
 * A copy of `value` with every property whose name marks a secret replaced by "[masked]", at any depth
 * (arrays and nested objects included). Whatever a verb passes, no audit row holds a secret.
 * Values that are not plain data (Dates) are kept as they are: JSON serialises them.
 */
export function maskSecrets(value: unknown, depth = 0): unknown {
  // Audit documents are a few levels deep; a cycle or a pathological document is cut, not followed.
  if (depth > 32) return MASKED;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value)) {
    out[name] = isSecretName(name) ? MASKED : maskSecrets(child, depth + 1);
  }
  return out;
}
