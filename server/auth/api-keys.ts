import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newId } from '../ids';
import type { Environment } from '../context';

// The prefix says which environment a key belongs to, and lets secret scanners spot leaked keys.
const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', production: 'sk_live_' };

export interface NewApiKey {
  clientId: string;
  apiKey: string;
  keyHash: string;
  keyLast4: string;
}

/** 32 random bytes (256 bits) after the prefix: far beyond guessing, so a plain SHA-256 is the right hash. */
export function generateApiKey(environment: Environment): NewApiKey {
  const apiKey = KEY_PREFIX[environment] + randomBytes(32).toString('base64url');
  return { clientId: `ci_${newId()}`, apiKey, keyHash: hashApiKey(apiKey), keyLast4: apiKey.slice(-4) };
}

// crypto.hash, not createHash: one call instead of a Hash object per digest, three digests per partner request
// (the key's, and both sides of the client id's comparison): 1.34 -> 0.52 us a digest, 200,000 in a loop.
export function hashApiKey(apiKey: string): string {
  return hash('sha256', apiKey, 'hex');
}

/** Constant-time string equality that does not leak the length of either side. */
export function safeEqual(a: string, b: string): boolean {
  const ha = hash('sha256', a, 'buffer');
  const hb = hash('sha256', b, 'buffer');
  return timingSafeEqual(ha, hb);
}
