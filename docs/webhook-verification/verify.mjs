// Verifies a Partner Delivery Platform webhook (X-Service-Signature) in Node.js, with node:crypto only.
// Copy verifyWebhook into your receiver; hand it the raw body bytes, exactly as received.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * @param {Buffer} rawBody   the request body as received, before any JSON parsing
 * @param {string} header    the X-Service-Signature header: "t=<unix>,v1=<hex>[,v1=<hex>]"
 * @param {string[]} secrets your endpoint's secret(s), "whsec_…" as shown at creation or rotation
 * @param {number} toleranceSeconds how far t may be from now (replay protection)
 * @returns {boolean}
 */
export function verifyWebhook(rawBody, header, secrets, toleranceSeconds = 300, nowSeconds = Date.now() / 1000) {
  const fields = String(header)
    .split(',')
    .map((part) => part.trim().split('='));
  const t = fields.find(([key]) => key === 't')?.[1];
  if (!t || !/^\d+$/.test(t) || Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false;
  const signatures = fields.filter(([key]) => key === 'v1').map(([, value]) => Buffer.from(value ?? ''));
  return secrets.some((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex'));
    return signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
}

// As a command (used by the project's tests): node verify.mjs <body-file> <header> <secret>... [--tolerance=S]
if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import('node:fs');
  const args = process.argv.slice(2);
  const tolerance = args.find((a) => a.startsWith('--tolerance='));
  const [bodyFile, header, ...secrets] = args.filter((a) => a !== tolerance);
  const ok = verifyWebhook(readFileSync(bodyFile), header, secrets, tolerance ? Number(tolerance.split('=')[1]) : undefined);
  console.log(ok ? 'valid' : 'invalid');
  process.exit(ok ? 0 : 1);
}
