import { describe, expect, it } from 'vitest';
import { changedFields } from '@/server/audit/changes';

describe('changedFields', () => {
  it('keeps only the fields that differ, compared as JSON, minus the ignored ones', () => {
    const before = {
      url: 'https://a.test',
      event_filters: ['order.created'],
      status: 'enabled',
      updated: 1,
      description: null as string | null,
    };
    const after = { url: 'https://a.test', event_filters: ['order.created'], status: 'disabled', updated: 2, description: 'x' };
    expect(changedFields(before, after, ['updated'])).toEqual({
      before: { status: 'enabled', description: null },
      after: { status: 'disabled', description: 'x' },
    });
    expect(changedFields(before, { ...before, updated: 9 }, ['updated'])).toEqual({ before: {}, after: {} });
  });
});
