import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// patches/pg-boss+10.4.2.patch. pg-boss waits with `delay()` (src/tools.js) twice for every batch it fetches: the
// handler's deadline (manager.js resolveWithinSeconds) and the loop's pause (worker.js), each cut short by abort().
// The original armed timers/promises' setTimeout with an AbortController, and each abort made a DOMException only to
// drop it: ~5 % of the service's main thread at 50 live events/s (perf, docs/benchmarks.md). Patched, a plain timer.

type Delay = (ms: number, error?: string) => Promise<void> & { abort(): void };

// The package's exports do not name src/tools.js; it is read from the package's directory.
const require = createRequire(import.meta.url);
const { delay } = require(path.join(path.dirname(require.resolve('pg-boss')), 'tools.js')) as { delay: Delay };

const Original = globalThis.AbortController;
afterEach(() => {
  globalThis.AbortController = Original;
});

describe("pg-boss's delay", () => {
  it('is cut short by abort() without an AbortController or an error made', async () => {
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    const started = performance.now();
    const waiting = delay(60_000);
    waiting.abort();
    await waiting;
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(made).toBe(0);
  });

  it('resolves when its time is up, or rejects with the error it was given', async () => {
    await expect(delay(5)).resolves.toBeUndefined();
    await expect(delay(5, 'handler execution exceeded 5ms')).rejects.toThrow('handler execution exceeded 5ms');
  });

  it('answers an abort after its time is up, or a second abort, with nothing', async () => {
    const waiting = delay(5);
    await waiting;
    waiting.abort();
    const twice = delay(60_000);
    twice.abort();
    twice.abort();
    // Settled, not failed (the original resolved with the AbortError it caught; nothing reads the value).
    expect(await twice.then(() => 'settled')).toBe('settled');
  });
});
