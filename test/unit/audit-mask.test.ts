import { describe, expect, it } from 'vitest';
import { isSecretName, MASKED, maskSecrets } from '@/server/audit/mask';

describe('maskSecrets', () => {
  it('masks every secret-named property at any depth, in objects and arrays', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const masked = maskSecrets({
      email: 'ops@example.com',
      password: 'hunter2hunter2',
      password_hash: 'scrypt$16384$abc$def',
      nested: { api_key: 'sk_live_x', apiKey: 'sk_live_y', key: 'k', key_hash: 'h', key_last4: '1234', revoked_at: at },
      subscriptions: [
        { url: 'https://x.test', secret: 'whsec_1', secret_sealed: 'v1:abc' },
        { token: 't', signature: 'sig' },
      ],
      previous_secrets: [{ sealed: 'v1:old', expires_at: 'x' }],
      headers: { Authorization: 'Bearer abc', 'X-Webhook-Secret': 's', cookie: 'pdp_session=abc' },
      session_token: 'abc',
      token_hash: 'abc',
      count: 3,
      none: null,
    });
    expect(masked).toEqual({
      email: 'ops@example.com',
      password: MASKED,
      password_hash: MASKED,
      nested: { api_key: MASKED, apiKey: MASKED, key: MASKED, key_hash: MASKED, key_last4: '1234', revoked_at: at },
      subscriptions: [
        { url: 'https://x.test', secret: MASKED, secret_sealed: MASKED },
        { token: MASKED, signature: MASKED },
      ],
      previous_secrets: MASKED,
      headers: { Authorization: MASKED, 'X-Webhook-Secret': MASKED, cookie: MASKED },
      session_token: MASKED,
      token_hash: MASKED,
      count: 3,
      none: null,
    });
    expect(JSON.stringify(masked)).not.toMatch(/hunter2|scrypt|sk_live|whsec|v1:|Bearer|pdp_session/);
  });

  it('leaves non-secret values and scalars alone, and does not change its argument', () => {
    const input = { role: 'admin', key_last4: '9f2c', partner_id: 'p1', keys: ['a'], monkey: 'm', tokenizer: 't' };
    expect(maskSecrets(input)).toEqual(input);
    const withSecret = { password: 'x' };
    maskSecrets(withSecret);
    expect(withSecret).toEqual({ password: 'x' });
    for (const scalar of [null, 'text', 42, true]) expect(maskSecrets(scalar)).toBe(scalar);
    expect(maskSecrets([{ secret: 's' }])).toEqual([{ secret: MASKED }]);
  });

  it.each([
    ['secret', true],
    ['Secret', true],
    ['webhookSecret', true],
    ['client_secret', true],
    ['newPassword', true],
    ['passwordHash', true],
    ['API_KEY', true],
    ['keyHash', true],
    ['key', true],
    ['key_last4', false],
    ['key_id', false],
    ['email', false],
    ['role', false],
  ])('isSecretName(%s) is %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });
});
