import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/env';
import { SecretBox } from './secret-box';

/**
 * SECRET_ENCRYPTION_KEY when set. On the embedded default (no DATABASE_URL) one is generated once and
 * kept in DATA_DIR beside the database it protects. With DATABASE_URL and no key, start-up stops:
 * secrets sealed with a key nobody kept could never be read again.
 */
export function loadSecretBox(env: Env): SecretBox {
  return SecretBox.fromText(secretKeyText(env));
}

/** The key's text, as loadSecretBox finds or makes it (the replay thread is given it: server/boot/replay-thread.ts). */
export function secretKeyText(env: Env): string {
  if (env.SECRET_ENCRYPTION_KEY) return env.SECRET_ENCRYPTION_KEY;
  if (env.DATABASE_URL) {
    throw new Error(
      'SECRET_ENCRYPTION_KEY is required with DATABASE_URL: 32 bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`), the same in every process',
    );
  }
  mkdirSync(env.DATA_DIR, { recursive: true });
  const file = path.join(env.DATA_DIR, 'secret-encryption-key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8');
}
