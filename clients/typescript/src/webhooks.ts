import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from '../generated/openapi';

/**
 * Why a delivery was refused:
 * - `no_signature`: no X-Service-Signature header (or an empty one);
 * - `malformed_header`: not `t=<unix seconds>,v1=<64 lowercase hex>[,v1=…]`;
 * - `mismatch`: no `v1` is the HMAC of this body under any of your secrets (a changed body, a body parsed and
 *   serialized again, or the wrong secret);
 * - `too_old` / `too_new`: genuine, but signed further from your clock than the tolerance (a replayed
 *   delivery, or a clock that is off).
 */
export type WebhookFailure = 'no_signature' | 'malformed_header' | 'mismatch' | 'too_old' | 'too_new';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

/** An event as the latest version renders it; a subscription on an older version receives that version's shape. */
export type WebhookEvent = components['schemas']['Event'];

export interface VerifiedWebhook<E = WebhookEvent> {
  /** The body, parsed once it was proven genuine. */
  event: E;
  /** The signature's `t`: when this attempt was signed, in unix seconds. */
  timestamp: number;
  /** Which of the secrets you passed signed it: during a rotation, once every delivery matches the new one, drop the old. */
  secretIndex: number;
}

export interface VerifyWebhookOptions {
  /** How far `t` may be from your clock, either way; 300 s by default (the spec's five minutes). */
  toleranceSeconds?: number;
  /** Your clock, for tests; `new Date()` by default. */
  now?: Date;
}

const SIGNATURE = /^[0-9a-f]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks a delivery's X-Service-Signature and returns its event, or throws a WebhookVerificationError
 * that says why. The signature is HMAC-SHA256, keyed with the whole secret string (`whsec_…`, prefix
 * included), over `<t>.<raw body>`, as lowercase hex; any `v1` may match any secret (during a rotation a
 * delivery carries one per secret still signing), compared in constant time.
 *
 * @param rawBody the body exactly as received, before any JSON parsing (a Buffer, or the same bytes as a string)
 * @param signatureHeader the X-Service-Signature header
 * @param secrets your subscription's secret, or every secret you hold during a rotation
 */
export function verifyWebhook<E = WebhookEvent>(
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secrets: string | readonly string[],
  { toleranceSeconds = 300, now = new Date() }: VerifyWebhookOptions = {},
): VerifiedWebhook<E> {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === '')) {
    throw new TypeError('verifyWebhook: pass your subscription secret (whsec_…), or a non-empty list of them');
  }
  const header = signatureHeader?.trim();
  if (!header) throw new WebhookVerificationError('no_signature', 'the delivery has no X-Service-Signature header');
  const { t, signatures } = parseSignatureHeader(header);

  const signed = Buffer.concat([Buffer.from(`${t}.`), typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody]);
  const secretIndex = keys.findIndex((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(signed).digest('hex'));
    return signatures.some((s) => timingSafeEqual(s, expected));
  });
  if (secretIndex < 0) {
    throw new WebhookVerificationError(
      'mismatch',
      'no v1 signature matches this body under the secret(s) given: check the secret and pass the raw body',
    );
  }
  // Checked after the signature, so that an age is only ever reported for a genuine delivery.
  const age = now.getTime() / 1000 - t;
  if (age > toleranceSeconds) {
    throw new WebhookVerificationError('too_old', `signed ${Math.round(age)} s ago, more than the ${toleranceSeconds} s allowed`);
  }
  if (-age > toleranceSeconds) {
    throw new WebhookVerificationError(
      'too_new',
      `signed ${Math.round(-age)} s ahead of this clock, more than the ${toleranceSeconds} s allowed`,
    );
  }
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  return { event: JSON.parse(text) as E, timestamp: t, secretIndex };
}

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`; keys other than t and v1 (a future scheme) are passed over. */
function parseSignatureHeader(header: string): { t: number; signatures: Buffer[] } {
  let t: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new WebhookVerificationError('malformed_header', 'X-Service-Signature has a part that is not key=value');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined) throw new WebhookVerificationError('malformed_header', 'X-Service-Signature has more than one t');
      t = value;
    } else if (key === 'v1' && SIGNATURE.test(value)) {
      signatures.push(Buffer.from(value));
    }
  }
  if (t === undefined || !UNIX_SECONDS.test(t)) {
    throw new WebhookVerificationError('malformed_header', 'X-Service-Signature has no t of unix seconds');
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError('malformed_header', 'X-Service-Signature has no v1 of 64 lowercase hex digits');
  }
  return { t: Number(t), signatures };
}
