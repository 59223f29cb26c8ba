import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

/** A fresh database for this test file, copied from the run's migrated template (pg-boss schema included). */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject('pgAdminUrl');
  const name = `${inject('pgPrefix')}${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${inject('pgTemplate')}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
