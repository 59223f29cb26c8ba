import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets we must be able to read back (webhook signing secrets). Each value
 * carries the id of the key that sealed it, so a key rotation can keep old values readable.
 * Format: v1.<key id>.<iv>.<tag>.<ciphertext>, base64url parts.
 */
export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secret encryption key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('base64url').slice(0, 8);
  }

  static fromText(text: string): SecretBox {
    const trimmed = text.trim();
    const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
    return new SecretBox(key);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, keyId, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed secret');
    if (keyId !== this.keyId) throw new Error(`sealed with key ${keyId}, but the configured key is ${this.keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}
