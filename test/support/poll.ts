// Waiting in tests: poll a condition with a deadline (waitFor, msUntil), or, where the passing of time is
// itself what a test checks, wait a fixed time that says why (settle).

type Falsy = false | 0 | 0n | '' | null | undefined;

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /** A check that throws counts as "not yet" instead of failing at once (e.g. while a database restarts). */
  ignoreErrors?: boolean;
  /** More to say on timeout, read only then (e.g. what a child process printed). */
  context?: () => string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function preview(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // circular or a BigInt: fall back to String below
  }
  text ??= String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Calls `check` until its value is truthy (or, with `until`, satisfies it) and returns that value.
 * Past the deadline it throws an error naming `what` was awaited, with the last value or error.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  opts: WaitOptions & { until: (value: T) => boolean },
): Promise<T>;
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  opts?: WaitOptions & { until?: undefined },
): Promise<Exclude<T, Falsy>>;
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  opts: WaitOptions & { until?: (value: T) => boolean } = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 50, ignoreErrors = false, until = Boolean } = opts;
  const started = performance.now();
  let last: string;
  for (;;) {
    try {
      const value = await check();
      if (until(value)) return value;
      last = `last value ${preview(value)}`;
    } catch (error) {
      if (!ignoreErrors) throw error;
      last = `last error ${String(error)}`;
    }
    if (performance.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${last})${opts.context ? `\n${opts.context()}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** As waitFor, for tests that report or bound the wait: answers how long it took, in milliseconds. */
export async function msUntil(what: string, check: () => unknown, opts: WaitOptions = {}): Promise<number> {
  const started = performance.now();
  await waitFor(what, check, opts);
  return performance.now() - started;
}

/**
 * A fixed wait, only where the time passing is the point: to show that nothing more arrives within it,
 * or to let a timestamp grow old. Anything that can be observed is awaited with waitFor instead.
 * `why` is for the reader: it says which of the two this wait is.
 */
export async function settle(ms: number, why: string): Promise<void> {
  if (!why) throw new Error('settle: say why this wait is fixed');
  await sleep(ms);
}
