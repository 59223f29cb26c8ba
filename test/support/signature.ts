import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Spec part 5, from its words: `t=<unix>,v1=<hex>`, HMAC-SHA256 over `<t>.<raw body>` keyed with the
 * secret string; any `v1` may match. Independent of server/delivery/signing.ts.
 */
export function specSignatureMatches(secret: string, header: string | undefined, raw: Buffer): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'));
  return parts.some(([k, v]) => k === 'v1' && v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}
