import { describe, expect, it } from 'vitest';
import { delayUntil, refreshDelay, RETRY_WAIT_MAX_MS, soonest } from '@/app/_console/deliveries/live';
import { progressOf, progressText, replayRefreshDelay, stateOf, type ReplayView } from '@/app/_console/replays/progress';
import { scenarioRunning } from '@/server/orders/scenarios';
import { replayPhase } from '@/server/replays/progress';

// Issue 24: a replay read "completed" with a full bar and "0 delivered of 6" while its six deliveries were
// on their way, and the list stopped reading. What the row shows and when views read again, computed.

const NOW = Date.parse('2026-11-24T21:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

function replay(over: Partial<ReplayView>): ReplayView {
  return {
    status: 'completed',
    phase: 'settled',
    matched: 6,
    enqueued: 6,
    delivered: 0,
    failed: 0,
    skipped: 0,
    pending: 0,
    retrying: 0,
    nextRetryAt: null,
    ...over,
  };
}

describe('replayPhase', () => {
  it('is sending while pages are left, whatever its deliveries do', () => {
    expect(replayPhase('queued', { pending: 0, retrying: 0 })).toBe('sending');
    expect(replayPhase('running', { pending: 3, retrying: 3 })).toBe('sending');
  });

  it('after the pages: delivering while one is in flight or due, retrying when all wait for a retry, settled when none is pending', () => {
    expect(replayPhase('completed', { pending: 6, retrying: 0 })).toBe('delivering');
    expect(replayPhase('completed', { pending: 3, retrying: 2 })).toBe('delivering');
    expect(replayPhase('completed', { pending: 2, retrying: 2 })).toBe('retrying');
    expect(replayPhase('completed', { pending: 0, retrying: 0 })).toBe('settled');
  });

  it('a cancelled or failed replay settles once what it sent ends', () => {
    expect(replayPhase('cancelled', { pending: 1, retrying: 0 })).toBe('delivering');
    expect(replayPhase('cancelled', { pending: 0, retrying: 0 })).toBe('settled');
    expect(replayPhase('failed', { pending: 2, retrying: 2 })).toBe('retrying');
    expect(replayPhase('failed', { pending: 0, retrying: 0 })).toBe('settled');
  });
});

describe('progressOf', () => {
  it('is not full for a completed replay whose deliveries are on their way (the issue)', () => {
    expect(progressOf(replay({ phase: 'delivering', pending: 6 }))).toEqual({ value: 0, max: 6 });
    expect(progressOf(replay({ phase: 'delivering', delivered: 4, pending: 2 }))).toEqual({ value: 4, max: 6 });
  });

  it('counts every ending (delivered, failed, skipped) and is full once none is pending', () => {
    expect(progressOf(replay({ phase: 'retrying', delivered: 3, failed: 1, pending: 2, retrying: 2 }))).toEqual({ value: 4, max: 6 });
    expect(progressOf(replay({ delivered: 3, failed: 1, skipped: 2 }))).toEqual({ value: 6, max: 6 });
  });

  it('while sending, out of the events matched', () => {
    expect(progressOf(replay({ status: 'running', phase: 'sending', matched: 400, enqueued: 200, delivered: 150, pending: 50 }))).toEqual({
      value: 150,
      max: 400,
    });
  });

  it('after the pages, out of what it sent: events left out (already pending) do not keep it from filling', () => {
    expect(progressOf(replay({ enqueued: 5, delivered: 5 }))).toEqual({ value: 5, max: 5 });
  });

  it('a replay that sent nothing and has nothing pending is full, never 0 of 0', () => {
    expect(progressOf(replay({ matched: 0, enqueued: 0 }))).toEqual({ value: 1, max: 1 });
    expect(progressOf(replay({ status: 'cancelled', enqueued: 0 }))).toEqual({ value: 1, max: 1 });
  });
});

describe('progressText', () => {
  it('says what is on the way and what waits for a retry', () => {
    expect(progressText(replay({ phase: 'delivering', pending: 6 }))).toBe('0 delivered, 0 failed, 6 on the way of 6');
    expect(progressText(replay({ phase: 'retrying', delivered: 3, pending: 2, retrying: 2, failed: 1 }))).toBe(
      '3 delivered, 1 failed, 2 retrying of 6',
    );
    expect(progressText(replay({ delivered: 4, skipped: 2 }))).toBe('4 delivered, 0 failed, 2 skipped of 6');
  });

  it('after the pages, names what was sent when it differs from what matched', () => {
    expect(progressText(replay({ enqueued: 5, delivered: 5 }))).toBe('5 delivered, 0 failed of 5 sent (6 matched)');
    expect(progressText(replay({ status: 'running', phase: 'sending', enqueued: 2, delivered: 1, pending: 1 }))).toBe(
      '1 delivered, 0 failed, 1 on the way of 6',
    );
  });
});

describe('stateOf', () => {
  it('never says completed while a delivery is pending', () => {
    expect(stateOf({ status: 'completed', phase: 'delivering' })).toEqual({ word: 'delivering', note: 'every event sent' });
    expect(stateOf({ status: 'completed', phase: 'retrying' })).toEqual({ word: 'retrying', note: 'every event sent' });
    expect(stateOf({ status: 'completed', phase: 'settled' })).toEqual({ word: 'completed', note: null });
  });

  it('shows the status while sending, and a stopped replay finishing what it sent', () => {
    expect(stateOf({ status: 'running', phase: 'sending' })).toEqual({ word: 'running', note: null });
    expect(stateOf({ status: 'cancelled', phase: 'delivering' })).toEqual({
      word: 'delivering',
      note: 'cancelled: what was sent finishes',
    });
    expect(stateOf({ status: 'cancelled', phase: 'settled' })).toEqual({ word: 'cancelled', note: null });
  });
});

describe('replayRefreshDelay', () => {
  it('reads every second while one sends or delivers, never once all settled', () => {
    expect(replayRefreshDelay([replay({}), replay({ phase: 'delivering' })], NOW)).toBe(1000);
    expect(replayRefreshDelay([replay({ phase: 'sending' })], NOW)).toBe(1000);
    expect(replayRefreshDelay([replay({}), replay({})], NOW)).toBeNull();
    expect(replayRefreshDelay([], NOW)).toBeNull();
  });

  it('while only retries remain, reads when the first is due, at most 30 s away', () => {
    expect(replayRefreshDelay([replay({ phase: 'retrying', nextRetryAt: at(7_200) })], NOW)).toBe(8_000);
    expect(replayRefreshDelay([replay({ phase: 'retrying', nextRetryAt: at(3 * 3_600_000) })], NOW)).toBe(RETRY_WAIT_MAX_MS);
    expect(replayRefreshDelay([replay({ phase: 'retrying', nextRetryAt: at(-5_000) })], NOW)).toBe(1000);
  });
});

describe('refreshDelay (a view of deliveries)', () => {
  it('is null when none is pending', () => {
    expect(refreshDelay([{ outcome: 'succeeded' }, { outcome: 'failed', nextAttemptAt: null }], NOW)).toBeNull();
  });

  it('is soon while one is in flight or due: no next attempt time, or one passed', () => {
    expect(refreshDelay([{ outcome: 'pending', nextAttemptAt: null }], NOW)).toBe(2000);
    expect(
      refreshDelay(
        [
          { outcome: 'pending', nextAttemptAt: at(-1000) },
          { outcome: 'pending', nextAttemptAt: at(3_600_000) },
        ],
        NOW,
      ),
    ).toBe(2000);
    expect(refreshDelay([{ outcome: 'pending' }], NOW, 1000)).toBe(1000);
  });

  it('waits for the first scheduled retry, at most 30 s', () => {
    expect(refreshDelay([{ outcome: 'pending', nextAttemptAt: at(12_500) }, { outcome: 'succeeded' }], NOW)).toBe(13_000);
    expect(refreshDelay([{ outcome: 'pending', nextAttemptAt: at(5 * 3_600_000) }], NOW)).toBe(RETRY_WAIT_MAX_MS);
  });

  it('delayUntil and soonest', () => {
    expect([delayUntil(NOW + 100, NOW), delayUntil(NOW + 4_001, NOW), delayUntil(NOW + 90_000, NOW)]).toEqual([2000, 5000, 30_000]);
    expect([soonest(null, null), soonest(3000, null), soonest(null, 2000), soonest(3000, 2000)]).toEqual([null, 3000, 2000, 2000]);
  });
});

it('scenarioRunning: a sandbox scenario moves its order while steps are left, not once finished or stopped', () => {
  const sim = (next_step: number) => ({ scenario: 'happy_path', step_seconds: 5, next_step });
  expect([
    scenarioRunning(null),
    scenarioRunning(sim(0)),
    scenarioRunning(sim(4)),
    scenarioRunning(sim(5)),
    scenarioRunning(sim(-1)),
  ]).toEqual([false, true, true, false, false]);
  expect(scenarioRunning({ scenario: 'unknown', step_seconds: 5, next_step: 0 })).toBe(false);
});
