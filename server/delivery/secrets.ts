import type { Deps } from '../context';
import type { SubscriptionRow } from '../webhooks/present';

function box(deps: Pick<Deps, 'secretBox'>) {
  if (!deps.secretBox) throw new Error('no secret encryption key in this process');
  return deps.secretBox;
}

export function sealSecret(deps: Pick<Deps, 'secretBox'>, secret: string): string {
  return box(deps).seal(secret);
}

// Opened secrets by sealed value: every delivery signs, and a sealed value never changes meaning.
const opened = new Map<string, string>();
const OPENED_MAX = 10_000;

function open(deps: Pick<Deps, 'secretBox'>, sealed: string): string {
  let secret = opened.get(sealed);
  if (secret === undefined) {
    if (opened.size >= OPENED_MAX) opened.clear();
    secret = box(deps).open(sealed);
    opened.set(sealed, secret);
  }
  return secret;
}

/** The secrets that sign a delivery now: the current one, then each replaced one whose overlap still runs. */
export function signingSecrets(
  deps: Pick<Deps, 'secretBox'>,
  row: Pick<SubscriptionRow, 'secretSealed' | 'previousSecrets'>,
  now = new Date(),
): string[] {
  const live = row.previousSecrets.filter((p) => new Date(p.expires_at) > now);
  return [open(deps, row.secretSealed), ...live.map((p) => open(deps, p.sealed))];
}
