import type { NoticeStreak } from '@/db/schema';
import { unixSeconds } from '../time';
import type { SubscriptionRow } from '../webhooks/present';
import type { NoticeClocks, NoticeStage } from './stages';

/**
 * The streak that began at `since` (the open one, failing_since, or one a success ended,
 * recovered_from) as a stage's mails and event tell it. The counts are the subscription's streak
 * columns, which a newer streak takes over: a streak told of after another began leaves them out.
 */
export function streakOf(row: SubscriptionRow, stage: NoticeStage, since: Date, clocks: NoticeClocks): NoticeStreak {
  const recovered = stage === 'recovered';
  const counted = row.failingSince === null || row.failingSince.getTime() === since.getTime();
  return {
    stage,
    started: unixSeconds(since),
    failed_attempts: counted ? row.streakFailures : null,
    last_failure:
      counted && row.lastFailureAt
        ? { at: unixSeconds(row.lastFailureAt), error_kind: row.lastErrorKind, response_status: row.lastResponseStatus }
        : null,
    disables_after: stage === 'disabled' || recovered ? null : unixSeconds(new Date(since.getTime() + clocks.disableAfterMs)),
    // The disabling failure stamped updated_at.
    ended: recovered ? unixSeconds(row.recoveredAt ?? new Date()) : stage === 'disabled' ? unixSeconds(row.updatedAt) : null,
  };
}
