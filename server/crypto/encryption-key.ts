import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/env';
import type { Logger } from '../logger';
import { SecretBox } from './secret-box';

/**
 * SECRET_ENCRYPTION_KEY when set. On the embedded default (no DATABASE_URL) one is generated once and
 * kept in DATA_DIR beside the database it protects. With DATABASE_URL and no key, start-up stops:
 * secrets sealed with a key nobody kept could never be read again.
 */
export function loadSecretBox(env: Env, log: Logger): SecretBox | undefined {
  if (env.SECRET_ENCRYPTION_KEY) return SecretBox.fromText(env.SECRET_ENCRYPTION_KEY);
  if (env.DATABASE_URL) {
    log.warn('SECRET_ENCRYPTION_KEY is not set: webhook subscriptions cannot be created or delivered (32 bytes as 64 hex characters or base64; e.g. `openssl rand -hex 32`)');
    return undefined;
  }
  const file = path.join(env.DATA_DIR, 'secret-encryption-key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return SecretBox.fromText(readFileSync(file, 'utf8'));
}
