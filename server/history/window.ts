import type { Env } from '../config/env';
import { HistoryNotRetainedError } from '../errors';
import { idFloor } from '../ids';

/**
 * The oldest moment whose events are retained: EVENT_RETENTION_DAYS ago. Older events may still be stored (a
 * week leaves whole, once all of it is past: server/history/retain.ts) but are gone for every purpose: nothing
 * replays or redelivers them, so no delivery of theirs starts again while retention looks at its week.
 */
export function oldestRetained(env: Pick<Env, 'EVENT_RETENTION_DAYS'>, now = Date.now()): Date {
  return new Date(now - env.EVENT_RETENTION_DAYS * 86_400_000);
}

/** The lowest event id retained (events' ids are ULIDs of their creation). */
export function oldestRetainedId(env: Pick<Env, 'EVENT_RETENTION_DAYS'>, now = Date.now()): string {
  return idFloor(oldestRetained(env, now));
}

/** Refuses a window that reaches before the oldest retained moment, naming it (a 422 history_not_retained). */
export function assertRetained(env: Pick<Env, 'EVENT_RETENTION_DAYS'>, param: string, from: Date): void {
  const oldest = oldestRetained(env);
  if (from < oldest) throw new HistoryNotRetainedError(param, oldest, env.EVENT_RETENTION_DAYS);
}
