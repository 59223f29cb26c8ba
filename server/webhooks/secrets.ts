import { runtime } from '../runtime';
import type { SubscriptionRow } from './present';

function box() {
  const b = runtime().secretBox;
  if (!b) throw new Error('no secret encryption key in this process');
  return b;
}

export function sealSecret(secret: string): string {
  return box().seal(secret);
}

// Opened secrets by sealed value: every delivery signs, and a sealed value never changes meaning.
const opened = new Map<string, string>();
const OPENED_MAX = 10_000;

function open(sealed: string): string {
  let secret = opened.get(sealed);
  if (secret === undefined) {
    if (opened.size >= OPENED_MAX) opened.clear();
    secret = box().open(sealed);
    opened.set(sealed, secret);
  }
  return secret;
}

/** The secrets that sign a delivery now: the current one, and during a rotation's overlap the previous one. */
export function signingSecrets(row: Pick<SubscriptionRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>, now = new Date()): string[] {
  const secrets = [open(row.secretSealed)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now) secrets.push(open(row.previousSecretSealed));
  return secrets;
}
