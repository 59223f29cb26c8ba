import { describe, expect, it } from 'vitest';
import { replaySlots } from '@/jobs/delivery-engine';

describe('replaySlots', () => {
  it('leaves a quarter of the share, at least one slot, to live attempts; a share of one is shared', () => {
    expect([1, 2, 3, 4, 5, 8, 10, 20].map(replaySlots)).toEqual([1, 1, 2, 3, 4, 6, 8, 15]);
  });
});
