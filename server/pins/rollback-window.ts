import { ConflictError } from '../errors';

/** An upgrade can be undone for this long (as at Stripe): time to see a receiver or a client break, and go back. */
export const ROLLBACK_HOURS = 72;

/** Until when a pin can roll back to its previous version; null when it has none (never upgraded, or rolled back). */
export function rollbackUntil(pin: { previousVersion: string | null; changedAt: Date | null }): Date | null {
  if (!pin.previousVersion || !pin.changedAt) return null;
  return new Date(pin.changedAt.getTime() + ROLLBACK_HOURS * 3_600_000);
}

/**
 * Whether a pin may roll back now, as the one error that says why not: nothing to return to (never upgraded,
 * or already rolled back), or its window closed. Effects: rollback.ts refuses with this error, and the
 * pin's `rollback_until` (present.ts) says the same thing ahead of time.
 */
export function rollbackRefusal(
  pin: { version: string; previousVersion: string | null; changedAt: Date | null } | undefined,
  now: Date,
): ConflictError | undefined {
  const until = pin && rollbackUntil(pin);
  if (!pin || !until) {
    return new ConflictError(
      'api_version_rollback_unavailable',
      "Nothing to roll back to: this environment's version was not reached by an upgrade, or was rolled back to already.",
    );
  }
  if (now > until) {
    return new ConflictError(
      'api_version_rollback_expired',
      `The upgrade to ${pin.version} can no longer be rolled back: rollbacks are possible for ${ROLLBACK_HOURS} hours after an upgrade, until ${until.toISOString()}.`,
      { rollback_until: Math.floor(until.getTime() / 1000) },
    );
  }
  return undefined;
}
