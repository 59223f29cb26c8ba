import { describe, expect, it } from 'vitest';
import { Gate, SignInBusyError } from '@/server/sessions/sign-in-gates';

describe('Gate', () => {
  it('runs `concurrency` tasks at once, queues `queue` more, and refuses the rest before they start', async () => {
    const gate = new Gate(2, 3);
    let running = 0;
    let most = 0;
    let started = 0;
    const release: (() => void)[] = [];
    const task = () =>
      new Promise<void>((resolve) => {
        started++;
        most = Math.max(most, ++running);
        release.push(() => {
          running--;
          resolve();
        });
      });
    const results = Array.from({ length: 8 }, () =>
      gate.run(task).then(
        () => 'done',
        (e: unknown) => (e instanceof SignInBusyError ? 'busy' : 'other'),
      ),
    );
    // Let the first two start; three wait; three are refused at once.
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toBe(2);
    while (release.length > 0 || started < 5) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await Promise.all(results)).toEqual(['done', 'done', 'done', 'done', 'done', 'busy', 'busy', 'busy']);
    expect(most).toBe(2);
    const busy = new SignInBusyError();
    expect(busy.kind).toBe('unavailable');
    expect(busy.details.headers).toEqual({ 'retry-after': '1' });
  });
});
