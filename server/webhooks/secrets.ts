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

/** The secrets that sign a delivery now: the current one, and during a rotation's overlap the previous one. */
export function signingSecrets(row: Pick<SubscriptionRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>, now = new Date()): string[] {
  const secrets = [box().open(row.secretSealed)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now) secrets.push(box().open(row.previousSecretSealed));
  return secrets;
}
