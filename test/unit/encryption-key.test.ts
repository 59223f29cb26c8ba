import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnv } from '@/server/config/env';
import { loadSecretBox } from '@/server/crypto/encryption-key';

const dir = mkdtempSync(path.join(tmpdir(), 'pdp-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function env(vars: Record<string, string | undefined>) {
  return loadEnv({ ...process.env, SECRET_ENCRYPTION_KEY: undefined, DATABASE_URL: undefined, ...vars });
}

describe('loadSecretBox', () => {
  it('refuses to start with DATABASE_URL and no SECRET_ENCRYPTION_KEY, saying what to set', () => {
    expect(() => loadSecretBox(env({ DATABASE_URL: 'postgres://u:p@db.example:5432/pdp' }))).toThrow(
      /SECRET_ENCRYPTION_KEY is required with DATABASE_URL/,
    );
  });

  it('on the embedded default generates one key under DATA_DIR (0600) and keeps it', () => {
    const dataDir = path.join(dir, 'data');
    const first = loadSecretBox(env({ DATA_DIR: dataDir }));
    const file = path.join(dataDir, 'secret-encryption-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    const sealed = first.seal('whsec_x');
    expect(loadSecretBox(env({ DATA_DIR: dataDir })).open(sealed)).toBe('whsec_x');
  });

  it('uses SECRET_ENCRYPTION_KEY when set', () => {
    const key = 'ab'.repeat(32);
    const sealed = loadSecretBox(env({ SECRET_ENCRYPTION_KEY: key, DATABASE_URL: 'postgres://u:p@db.example/pdp' })).seal('s');
    expect(loadSecretBox(env({ SECRET_ENCRYPTION_KEY: key, DATA_DIR: path.join(dir, 'other') })).open(sealed)).toBe('s');
  });
});
