import { hash, randomBytes } from 'node:crypto';

/** A new session token: 256 random bits, sent only in the cookie. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored and looked up: the token's SHA-256 (a random token needs no slow hash). */
export function sessionTokenHash(token: string): string {
  return hash('sha256', token, 'hex');
}
