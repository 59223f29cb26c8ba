import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetryAfter } from '@/server/delivery/retry-schedule';

const env = { WEBHOOK_RETRY_SCHEDULE: undefined, WEBHOOK_SANDBOX_RETRY_WINDOW_SECONDS: 1800 };
const mid = () => 0.5; // no jitter

describe('nextRetryDelay', () => {
  it('follows the default schedule in production, then stops', () => {
    const delays = DEFAULT_RETRY_SCHEDULE.map((_, i) => nextRetryDelay(i + 1, 'production', env, undefined, mid));
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(nextRetryDelay(DEFAULT_RETRY_SCHEDULE.length + 1, 'production', env, undefined, mid)).toBeUndefined();
  });

  it('stops retrying sandbox deliveries once the schedule passes the sandbox window', () => {
    expect(nextRetryDelay(1, 'sandbox', env, undefined, mid)).toBe(5);
    expect(nextRetryDelay(2, 'sandbox', env, undefined, mid)).toBe(300);
    expect(nextRetryDelay(3, 'sandbox', env, undefined, mid)).toBeUndefined(); // 5 + 300 + 1800 > 1800
  });

  it('uses WEBHOOK_RETRY_SCHEDULE when set', () => {
    const custom = { ...env, WEBHOOK_RETRY_SCHEDULE: [1, 2] };
    expect([1, 2, 3].map((n) => nextRetryDelay(n, 'production', custom, undefined, mid))).toEqual([1, 2, undefined]);
  });

  it('jitters each delay within ±20 %', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const base = DEFAULT_RETRY_SCHEDULE[attempt - 1]!;
        const delay = nextRetryDelay(attempt, 'production', env, undefined, () => r)!;
        return delay >= base * 0.8 && delay <= base * 1.2;
      }),
    );
  });

  it('takes Retry-After as a floor, capped at 24 h', () => {
    expect(nextRetryDelay(1, 'production', env, 60, mid)).toBe(60);
    expect(nextRetryDelay(1, 'production', env, 1, mid)).toBe(5);
    expect(nextRetryDelay(1, 'production', env, 10 * 86_400, mid)).toBe(86_400);
    expect(nextRetryDelay(8, 'production', env, 60, mid)).toBeUndefined(); // never past the schedule's end
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it.each([
    ['120', 120],
    [' 7 ', 7],
    ['Tue, 24 Nov 2026 12:01:00 GMT', 60],
    ['Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});
