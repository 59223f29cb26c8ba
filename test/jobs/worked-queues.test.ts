import { describe, expect, it } from 'vitest';
import { jobDefinitions, sendsWebhooks, workedQueues } from '@/jobs/registry';

const names = (defs: { queue: { name: string } }[]) => defs.map((d) => d.queue.name);
const ALL = names([...jobDefinitions]);

describe('WORKER_QUEUES (workedQueues)', () => {
  it('unset or empty: every queue', () => {
    expect(names(workedQueues(undefined))).toEqual(ALL);
    expect(names(workedQueues([]))).toEqual(ALL);
  });

  it('names: those queues only; every name prefixed with -: all but those', () => {
    expect(names(workedQueues(['webhooks.replay-page', 'mail.send']))).toEqual(['webhooks.replay-page', 'mail.send']);
    expect(names(workedQueues(['-webhooks.replay-page']))).toEqual(ALL.filter((n) => n !== 'webhooks.replay-page'));
  });

  it('refuses a name that is no queue, and names mixed with exclusions', () => {
    expect(() => workedQueues(['webhooks.replay'])).toThrow(
      /WORKER_QUEUES: no queue named webhooks.replay \(the queues: webhooks.fanout, /,
    );
    expect(() => workedQueues(['mail.send', '-webhooks.replay-page'])).toThrow(/not both/);
  });

  it('a process sends webhooks, and runs a delivery engine, only when it works fan-out, deliveries or replay pages', () => {
    expect(sendsWebhooks(workedQueues(['webhooks.replay-page']))).toBe(true);
    expect(sendsWebhooks(workedQueues(['-webhooks.replay-page']))).toBe(true);
    expect(sendsWebhooks(workedQueues(['mail.send', 'webhooks.notices']))).toBe(false);
  });
});
