import type { VersionChange } from './change';
import { eventApiVersion } from './changes/2026-11-26-event-api-version';
import { eventPreviousAttributes } from './changes/2026-11-26-event-previous-attributes';

/**
 * The first version: the API as it was when versions were introduced. It has no change module (nothing
 * came before it); partners and subscriptions that existed then were pinned to it.
 */
export const FIRST_VERSION = '2026-11-01';

/**
 * Every change since the first version, oldest first; within a version, in the order they apply going
 * up (rendering down runs them in reverse). Adding a version is adding its modules here (one per change,
 * under changes/, `<version>-<name>.ts`): the changelog /docs shows is made from them (changelog.ts), and
 * test/unit/versions.test.ts fails when a module is not listed, is listed out of order, or lacks examples.
 */
export const CHANGES: readonly VersionChange[] = [eventApiVersion, eventPreviousAttributes];

/** Every version, oldest first. */
export const VERSIONS: readonly string[] = [FIRST_VERSION, ...new Set(CHANGES.map((c) => c.version))];

/** What the code speaks, and what an environment's first request pins. */
export const LATEST_VERSION: string = VERSIONS.at(-1)!;

const KNOWN = new Set(VERSIONS);

export function isKnownVersion(version: string): boolean {
  return KNOWN.has(version);
}

/** -1, 0 or 1: dates in YYYY-MM-DD compare as text. */
export function compareVersions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
