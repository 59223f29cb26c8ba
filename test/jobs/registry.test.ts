import { describe, expect, it } from 'vitest';
import { jobDefinitions } from '@/jobs/registry';
import * as queues from '@/server/outbox/queues';

// Every queue the domain can enqueue to (server/outbox/queues.ts) must be created and worked: a queue
// declared there but missing from the registry would have no table, and each enqueue would fail.
describe('job registry', () => {
  it('works every queue of server/outbox/queues.ts, each exactly once', () => {
    const declared = Object.values(queues as Record<string, unknown>)
      .filter((value): value is queues.Queue => typeof value === 'object' && value !== null && 'name' in value && 'payload' in value)
      .map((queue) => queue.name);
    expect(declared.length).toBeGreaterThan(0);
    expect(jobDefinitions.map((def) => def.queue.name).sort()).toEqual([...declared].sort());
  });
});
