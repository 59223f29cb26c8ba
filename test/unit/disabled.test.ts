import { describe, expect, it } from 'vitest';
import { autoDisableReason, receivesDeliveries } from '@/server/delivery/disabled';

const now = new Date('2026-11-26T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);

describe('the auto-disable rule', () => {
  it('disables at once on 410 Gone, whatever the streak', () => {
    expect(autoDisableReason({ gone: true, failingSince: null, now, afterHours: 120 })).toBe('gone');
  });

  it('disables a streak longer than the period, never one that starts or is shorter', () => {
    expect(autoDisableReason({ gone: false, failingSince: null, now, afterHours: 120 })).toBeUndefined();
    expect(autoDisableReason({ gone: false, failingSince: hoursAgo(119), now, afterHours: 120 })).toBeUndefined();
    expect(autoDisableReason({ gone: false, failingSince: hoursAgo(121), now, afterHours: 120 })).toBe('too_many_failures');
  });

  it('delivers only to an enabled subscription that is not deleted', () => {
    expect(receivesDeliveries({ status: 'enabled' })).toBe(true);
    expect(receivesDeliveries({ status: 'enabled', deletedAt: null })).toBe(true);
    expect(receivesDeliveries({ status: 'disabled' })).toBe(false);
    expect(receivesDeliveries({ status: 'enabled', deletedAt: now })).toBe(false);
  });
});
