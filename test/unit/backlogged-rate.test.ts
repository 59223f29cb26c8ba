import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackloggedRate } from '@/jobs/backlogged-rate';

describe('BackloggedRate', () => {
  afterEach(() => vi.useRealTimers());

  it('measures completions per second over windows that were backlogged at both ends, and keeps it through idle windows', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const rate = new BackloggedRate();
    const window = (completions: number, backlogged: boolean) => {
      for (let i = 0; i < completions; i++) rate.done();
      vi.advanceTimersByTime(250);
      rate.sample(backlogged);
    };
    window(0, true); // nothing done yet
    expect(rate.perSecond).toBeUndefined();
    window(250, true);
    expect(rate.perSecond).toBe(1000);
    window(125, true);
    expect(rate.perSecond).toBeCloseTo(850); // 1000 + 0.3 x (500 - 1000)
    window(0, false);
    window(0, false);
    window(40, true); // the queue filled during the window: not a measurement of the pace
    expect(rate.perSecond).toBeCloseTo(850);

    const first = new BackloggedRate();
    for (let i = 0; i < 20; i++) first.done();
    vi.advanceTimersByTime(250);
    first.sample(true); // no measurement yet: the first backlogged window is taken, however it began
    expect(first.perSecond).toBe(80);
  });
});
