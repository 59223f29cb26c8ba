import { AppError } from '../errors';

export class SignInBusyError extends AppError {
  constructor() {
    super('unavailable', 'sign_in_busy', 'Too many sign-ins are being checked right now; retry in a moment.', {
      headers: { 'retry-after': '1' },
    });
  }
}

/**
 * At most `concurrency` tasks at once, `queue` more waiting; beyond both a task is refused at once
 * with SignInBusyError (503, Retry-After: 1) before it starts.
 */
export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue) throw new SignInBusyError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below what is running.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * Throttle keys (an account and address pair, an address, an account) the database refused in the
 * last second, so that the rest of a burst is refused from memory instead of each waiting in turn for
 * the same advisory lock: measured on the loaded 2-core test machine, one reservation transaction took
 * 61 ms (p50) and 400 in a row 14-20 s. Only ever refuses sooner than the database would: a count
 * falls (a pending attempt succeeds, or a failure leaves the 15-minute window) at most a second later
 * for this process. Bounded: the oldest entries go first.
 */
export class RecentRefusals {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly ms = 1_000,
    private readonly max = 10_000,
  ) {}

  has(keys: readonly string[], now = Date.now()): boolean {
    return keys.some((key) => {
      const until = this.until.get(key);
      if (until === undefined) return false;
      if (until > now) return true;
      this.until.delete(key);
      return false;
    });
  }

  add(keys: readonly string[], now = Date.now()): void {
    for (const key of keys) {
      this.until.delete(key);
      if (this.until.size >= this.max) this.until.delete(this.until.keys().next().value!);
      this.until.set(key, now + this.ms);
    }
  }
}

/**
 * One process's bounds on sign-in work, made by boot. Measured on the 2-core test machine (issue 21
 * item 1), 200-400 sign-ins at once for one account:
 * - `check`: scrypt (~16 MiB and 50-70 ms of a core each) on libuv's 4 threads, unbounded, took a
 *   partner's GET /partner/event-types from p95 15 ms to 80 ms, max 2.9 s; 400 at once from 400
 *   addresses ran all 400 checks in 41 s (partner p95 70 ms). SIGN_IN_CONCURRENCY at once,
 *   SIGN_IN_QUEUE waiting: 55-97 of those 400 were checked, the rest refused in 5-19 s (p95 10-50 ms).
 * - `reserve`: the throttle's reservations (server/sessions/attempts.ts) wait on one advisory lock per
 *   account; 400 of them at once held every pooled connection while they waited, and the partner's
 *   requests queued behind them (p95 5.7 s). Two at a time leave the rest of the pool to everyone else.
 */
export interface SignInGates {
  reserve: Gate;
  check: Gate;
  refused: RecentRefusals;
}

export function signInGates(env: { SIGN_IN_CONCURRENCY: number; SIGN_IN_QUEUE: number }): SignInGates {
  return { reserve: new Gate(2, 1_000), check: new Gate(env.SIGN_IN_CONCURRENCY, env.SIGN_IN_QUEUE), refused: new RecentRefusals() };
}
