import { describe, expect, it } from 'vitest';
import { fieldDiff, showValue } from '@/app/_console/audit/diff';
import { everyMinute } from '@/app/_console/overview/minutes';
import { formatAge, formatSpan } from '@/app/_console/ui/format';

// What the overview and the audit log compute before they render: the chart's minutes, an entry's diff, a wait.

describe('everyMinute', () => {
  it('fills the minutes without attempts with zeros, from the window start to now, oldest first', () => {
    const minutes = everyMinute(
      [{ minute: '2026-11-24T21:02:00.000Z', succeeded: 3, failed: 1 }],
      '2026-11-24T21:00:30.000Z',
      new Date('2026-11-24T21:03:10.000Z'),
    );
    expect(minutes).toEqual([
      { minute: '2026-11-24T21:00:00.000Z', succeeded: 0, failed: 0 },
      { minute: '2026-11-24T21:01:00.000Z', succeeded: 0, failed: 0 },
      { minute: '2026-11-24T21:02:00.000Z', succeeded: 3, failed: 1 },
      { minute: '2026-11-24T21:03:00.000Z', succeeded: 0, failed: 0 },
    ]);
  });

  it('gives a 24-hour window its 1,441 minutes', () => {
    const now = new Date('2026-11-24T21:00:00.000Z');
    expect(everyMinute([], new Date(now.getTime() - 1440 * 60_000).toISOString(), now)).toHaveLength(1441);
  });
});

describe('fieldDiff', () => {
  it('lists only the fields that differ, absent sides undefined', () => {
    expect(fieldDiff({ role: 'support', email: 'a@example.com' }, { role: 'admin', email: 'a@example.com' })).toEqual([
      { field: 'role', before: 'support', after: 'admin' },
    ]);
    expect(fieldDiff(null, { name: 'Acme', tags: ['x'] })).toEqual([
      { field: 'name', before: undefined, after: 'Acme' },
      { field: 'tags', before: undefined, after: ['x'] },
    ]);
    expect(fieldDiff({ cidr: '10.0.0.0/8' }, null)).toEqual([{ field: 'cidr', before: '10.0.0.0/8', after: undefined }]);
  });

  it('compares nested values by content', () => {
    expect(fieldDiff({ filters: ['a', 'b'] }, { filters: ['a', 'b'] })).toEqual([]);
    expect(fieldDiff({ filters: ['a'] }, { filters: ['a', 'b'] })).toHaveLength(1);
  });

  it('shows text as is, other values as JSON, an absent side as a dash', () => {
    expect([showValue('[masked]'), showValue(5), showValue(null), showValue({ a: 1 }), showValue(undefined)]).toEqual([
      '[masked]',
      '5',
      'null',
      '{"a":1}',
      '—',
    ]);
  });
});

it('formatAge reads as seconds, minutes or hours', () => {
  expect([formatAge(null), formatAge(45), formatAge(200), formatAge(7500)]).toEqual(['—', '45 s', '3 min 20 s', '2 h 5 min']);
});

describe('formatSpan', () => {
  it('names a health chart interval in minutes, or in hours when whole (a window of 48 h or more)', () => {
    expect([1, 2, 8, 30, 90, 60, 120, 240].map(formatSpan)).toEqual([
      '1 minute',
      '2 minutes',
      '8 minutes',
      '30 minutes',
      '90 minutes',
      '1 hour',
      '2 hours',
      '4 hours',
    ]);
  });
});
