import type { Env } from '../config/env';

/**
 * What a failing streak is announced as, in order. A streak is the run of failed attempts since a
 * subscription's last success, named by its `failing_since`.
 */
export const NOTICE_STAGES = ['failing', 'warning_50', 'warning_90', 'disabled', 'recovered'] as const;
export type NoticeStage = (typeof NOTICE_STAGES)[number];

/** The stages an open streak reaches with time alone, in order; each share of the auto-disable period is its name. */
const TIMED: readonly { stage: NoticeStage; afterMs: (c: NoticeClocks) => number }[] = [
  { stage: 'failing', afterMs: (c) => c.failingAfterMs },
  { stage: 'warning_50', afterMs: (c) => 0.5 * c.disableAfterMs },
  { stage: 'warning_90', afterMs: (c) => 0.9 * c.disableAfterMs },
];
const TIMED_STAGES: ReadonlySet<NoticeStage> = new Set(TIMED.map((t) => t.stage));

export interface NoticeClocks {
  /** WEBHOOK_NOTICE_FAILING_AFTER_SECONDS */
  failingAfterMs: number;
  /** WEBHOOK_AUTO_DISABLE_AFTER_HOURS */
  disableAfterMs: number;
}

export function noticeClocks(env: Pick<Env, 'WEBHOOK_NOTICE_FAILING_AFTER_SECONDS' | 'WEBHOOK_AUTO_DISABLE_AFTER_HOURS'>): NoticeClocks {
  return {
    failingAfterMs: env.WEBHOOK_NOTICE_FAILING_AFTER_SECONDS * 1000,
    disableAfterMs: env.WEBHOOK_AUTO_DISABLE_AFTER_HOURS * 3_600_000,
  };
}

/** The last timed stage an open streak of this age has reached (the latest in the order), or undefined before the first. */
export function timedStage(ageMs: number, clocks: NoticeClocks): NoticeStage | undefined {
  let reached: NoticeStage | undefined;
  for (const t of TIMED) if (ageMs >= t.afterMs(clocks)) reached = t.stage;
  return reached;
}

/** How a streak stands now. */
export interface Streak {
  /**
   * failing: the subscription is enabled and the streak open; disabled: its failures disabled it
   * (gone, too_many_failures); recovered: a success ended it; quiet: none of these (someone disabled it,
   * so nobody is to be told of it).
   */
  state: 'failing' | 'disabled' | 'recovered' | 'quiet';
  /** Now minus the streak's start. */
  ageMs: number;
  /** The stages already announced for this streak. */
  sent: readonly string[];
}

/**
 * The failure notices of one streak, as a state machine: answers the stage to announce now, or
 * undefined. Each stage is announced at most once per streak (the caller's row per subscription,
 * streak and stage makes that hold across workers):
 *
 *   (nothing) ─► failing ─► warning_50 ─► warning_90      while the streak is open, by its age
 *        │           └──────────┴─────────────┴──► recovered   a success ends it, once any of those was sent
 *        └──────────┴──────────┴─────────────┴──► disabled    its failures disabled it (gone, too_many_failures)
 *
 * disabled and recovered end the streak's notices. A stage reached late (the job ran late, or the
 * partner opted in mid-streak) is announced alone: the earlier ones it passed are not sent after it,
 * since each later notice says all the earlier would have. A streak nobody was told of ends quietly.
 *
 * The effects of an announced stage (server/notices/announce.ts): one e-mail per technical contact of
 * the partner, a `webhook.failing` / `webhook.disabled` / `webhook.recovered` event to its other
 * subscriptions that ask for it, a `webhook_notices` row, and `pdp_webhook_notices_total`. In the
 * sandbox nothing at all unless the partner opted in (server/notices/advance.ts).
 */
export function nextNotice(streak: Streak, clocks: NoticeClocks): NoticeStage | undefined {
  const sent = new Set(streak.sent);
  if (sent.has('disabled') || sent.has('recovered')) return undefined;
  switch (streak.state) {
    case 'disabled':
      return 'disabled';
    case 'recovered':
      return [...sent].some((s) => TIMED_STAGES.has(s as NoticeStage)) ? 'recovered' : undefined;
    case 'failing': {
      const due = timedStage(streak.ageMs, clocks);
      if (due === undefined) return undefined;
      const rank = (s: string) => TIMED.findIndex((t) => t.stage === s);
      return [...sent].some((s) => rank(s) >= rank(due)) ? undefined : due;
    }
    case 'quiet':
      return undefined;
  }
}
