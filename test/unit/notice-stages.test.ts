import { describe, expect, it } from 'vitest';
import { nextNotice, timedStage, type NoticeClocks, type Streak } from '@/server/notices/stages';
import { roughly } from '@/server/notices/mail';

// The defaults: failing after an hour, disabled after 120 h (warnings at 60 h and 108 h).
const clocks: NoticeClocks = { failingAfterMs: 3_600_000, disableAfterMs: 120 * 3_600_000 };
const h = (hours: number) => hours * 3_600_000;
const streak = (state: Streak['state'], hours: number, sent: string[] = []): Streak => ({ state, ageMs: h(hours), sent });

describe('the failure notices state machine', () => {
  it('an open streak reaches failing at an hour, warning_50 at 60 h, warning_90 at 108 h', () => {
    expect(timedStage(h(0.99), clocks)).toBeUndefined();
    expect(timedStage(h(1), clocks)).toBe('failing');
    expect(timedStage(h(59.9), clocks)).toBe('failing');
    expect(timedStage(h(60), clocks)).toBe('warning_50');
    expect(timedStage(h(108), clocks)).toBe('warning_90');
    expect(timedStage(h(500), clocks)).toBe('warning_90');
  });

  it.each([
    // state, age (h), already sent, announced now
    ['failing', 0.5, [], undefined],
    ['failing', 1, [], 'failing'],
    ['failing', 2, ['failing'], undefined],
    ['failing', 61, ['failing'], 'warning_50'],
    ['failing', 61, ['failing', 'warning_50'], undefined],
    ['failing', 110, ['failing', 'warning_50'], 'warning_90'],
    ['failing', 110, ['failing', 'warning_50', 'warning_90'], undefined],
    // Reached late (the job was down, or the sandbox partner opted in mid-streak): only the latest stage.
    ['failing', 110, [], 'warning_90'],
    ['failing', 61, ['warning_90'], undefined],
    ['disabled', 121, ['failing', 'warning_50', 'warning_90'], 'disabled'],
    // A 410 disables at once: announced though nothing was before.
    ['disabled', 0, [], 'disabled'],
    ['disabled', 121, ['disabled'], undefined],
    ['recovered', 3, ['failing'], 'recovered'],
    ['recovered', 70, ['warning_50'], 'recovered'],
    ['recovered', 3, ['failing', 'recovered'], undefined],
    // Nobody was told of it: it ends quietly.
    ['recovered', 0.5, [], undefined],
    ['recovered', 3, ['disabled'], undefined],
    // Disabled by the partner or an operator: they know.
    ['quiet', 200, ['failing'], undefined],
  ] as const)('%s at %s h after %j: %s', (state, hours, sent, expected) => {
    expect(nextNotice(streak(state, hours, [...sent]), clocks)).toBe(expected);
  });

  it('a shortened clock moves every stage with it', () => {
    const fast: NoticeClocks = { failingAfterMs: 2000, disableAfterMs: 10_000 };
    expect([1000, 2000, 5000, 9000].map((ms) => nextNotice({ state: 'failing', ageMs: ms, sent: [] }, fast))).toEqual([
      undefined,
      'failing',
      'warning_50',
      'warning_90',
    ]);
  });

  it('says a duration in its two largest units', () => {
    expect(roughly(h(60))).toBe('2 days 12 hours');
    expect(roughly(h(1) + 5 * 60_000 + 7000)).toBe('1 hour 5 minutes');
    expect(roughly(h(12))).toBe('12 hours');
    expect(roughly(40_000)).toBe('40 seconds');
    expect(roughly(-5)).toBe('0 seconds');
  });
});
