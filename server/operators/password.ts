import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 16384;

function derive(password: string, salt: Buffer, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N: n, r: 8, p: 1 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${N}$${salt.toString('base64')}$${(await derive(password, salt, N)).toString('base64')}`;
}

/** True when `password` matches a hash made by hashPassword; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(n));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Compared against when the e-mail is unknown, so a wrong address costs the same time as a wrong password.
export const UNKNOWN_OPERATOR_HASH = `scrypt$${N}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

/** A password for an operator created without one: 144 random bits, shown once to whoever created it. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
