import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, generateWebhookSecret } from '@/server/delivery/signing';
import { verifyWebhook, WebhookVerificationError, type WebhookFailure } from '@partner-delivery/client';

// The TypeScript client's verifier against the service's own signer (server/delivery/signing.ts): what
// the service signs verifies, anything else is refused with the reason. Real deliveries:
// test/webhooks/verify-snippets.test.ts.

const NOW = new Date('2026-11-26T12:00:00Z');
const T = NOW.getTime() / 1000;

function signed(body: string, secrets: string[], timestamp = T): string {
  return deliveryHeaders({
    secrets,
    eventId: 'evt_1',
    eventType: 'order.created',
    apiVersion: '2026-06-01',
    timestamp,
    body,
    userAgent: 'test',
  })['x-service-signature']!;
}

function reason(f: () => unknown): WebhookFailure | 'accepted' {
  try {
    f();
    return 'accepted';
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
}

const secret = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => 'whsec_' + Buffer.from(b).toString('base64'));
const body = fc.json().map((j) => JSON.stringify({ id: 'evt_1', data: JSON.parse(j) as unknown }));

describe('verifyWebhook', () => {
  it('accepts what the service signs, from bytes or the same string, and returns the parsed event and t', () => {
    fc.assert(
      fc.property(body, secret, (raw, s) => {
        const header = signed(raw, [s]);
        const fromBytes = verifyWebhook(Buffer.from(raw), header, s, { now: NOW });
        expect(fromBytes).toEqual({ event: JSON.parse(raw), timestamp: T, secretIndex: 0 });
        expect(verifyWebhook(raw, header, [s], { now: NOW }).secretIndex).toBe(0);
      }),
    );
  });

  it('refuses a body changed in any byte, and another secret, as a mismatch', () => {
    fc.assert(
      fc.property(body, secret, secret, fc.nat(), fc.integer({ min: 1, max: 255 }), (raw, s, other, at, flip) => {
        const header = signed(raw, [s]);
        const bytes = Buffer.from(raw);
        bytes[at % bytes.length] = bytes[at % bytes.length]! ^ flip;
        expect(reason(() => verifyWebhook(bytes, header, s, { now: NOW }))).toBe('mismatch');
        fc.pre(other !== s);
        expect(reason(() => verifyWebhook(raw, header, other, { now: NOW }))).toBe('mismatch');
      }),
    );
  });

  it('during a rotation, accepts either secret in either order and says which one matched', () => {
    const [current, replaced, unrelated] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
    const raw = '{"id":"evt_1"}';
    const header = signed(raw, [current, replaced]);
    expect(verifyWebhook(raw, header, [replaced], { now: NOW }).secretIndex).toBe(0);
    expect(verifyWebhook(raw, header, [unrelated, current], { now: NOW }).secretIndex).toBe(1);
    expect(verifyWebhook(raw, header, [unrelated, replaced], { now: NOW }).secretIndex).toBe(1);
    expect(reason(() => verifyWebhook(raw, header, [unrelated], { now: NOW }))).toBe('mismatch');
  });

  it('refuses a genuine delivery signed outside the tolerance, either way, and only then', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3600 }), fc.integer({ min: -7200, max: 7200 }), (tolerance, offset) => {
        const s = 'whsec_' + 'a'.repeat(43);
        const header = signed('{}', [s], T + offset);
        const expected = offset < -tolerance ? 'too_old' : offset > tolerance ? 'too_new' : 'accepted';
        expect(reason(() => verifyWebhook('{}', header, s, { now: NOW, toleranceSeconds: tolerance }))).toBe(expected);
      }),
    );
    // The default is the spec's five minutes.
    const s = generateWebhookSecret();
    expect(reason(() => verifyWebhook('{}', signed('{}', [s], T - 300), s, { now: NOW }))).toBe('accepted');
    expect(reason(() => verifyWebhook('{}', signed('{}', [s], T - 301), s, { now: NOW }))).toBe('too_old');
  });

  it('says no_signature for a missing header and malformed_header for one that is not t=…,v1=…', () => {
    const s = generateWebhookSecret();
    const header = signed('{}', [s]);
    const v1 = /v1=([0-9a-f]+)/.exec(header)![1]!;
    for (const missing of [undefined, null, '', '   ']) {
      expect(reason(() => verifyWebhook('{}', missing, s, { now: NOW }))).toBe('no_signature');
    }
    const malformed = [
      'garbage',
      '=,=,=',
      `v1=${v1}`,
      `t=,v1=${v1}`,
      `t=\u00b2,v1=${v1}`,
      `t=\u0661\u0662\u0663,v1=${v1}`,
      `t=${T}e0,v1=${v1}`,
      `t=-${T},v1=${v1}`,
      `t=${T}.5,v1=${v1}`,
      `t=${T},t=${T},v1=${v1}`,
      `t=${T}`,
      `t=${T},v1=`,
      `t=${T},v1=${v1.toUpperCase()}`,
      `t=${T},v1=${v1}0`,
      `t=${T},v1=${v1.slice(0, -1)}\u00e9`,
      `t=${T},v1=${v1},x`,
      `t=${T}${',x'.repeat(2000)}`,
    ];
    for (const h of malformed)
      expect(
        reason(() => verifyWebhook('{}', h, s, { now: NOW })),
        h,
      ).toBe('malformed_header');
    // A scheme this verifier does not know is passed over, as a future v2 beside v1 would be.
    expect(reason(() => verifyWebhook('{}', `${header},v2=abc`, s, { now: NOW }))).toBe('accepted');
  });

  it('takes arbitrary headers without throwing anything but its own error', () => {
    const s = generateWebhookSecret();
    // Headers made of the real one's pieces and of anything else (fast-check's 'binary' strings took 6 s here).
    const hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
    const piece = fc.oneof(
      fc.constantFrom('t=', 'v1=', ',', '=', ' ', String(T), '\u00b2', '\u0661', '\ud800'),
      hex,
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const header = pieces.join('');
        expect(['no_signature', 'malformed_header', 'mismatch']).toContain(reason(() => verifyWebhook('{}', header, s, { now: NOW })));
      }),
    );
  });

  it('refuses to run without a secret: that is a mistake in the caller, not a forged delivery', () => {
    expect(() => verifyWebhook('{}', signed('{}', ['whsec_x']), [])).toThrow(TypeError);
    expect(() => verifyWebhook('{}', signed('{}', ['whsec_x']), '')).toThrow(TypeError);
  });
});
