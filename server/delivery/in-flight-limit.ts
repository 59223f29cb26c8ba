import type { PostOutcome } from './http-client';

/**
 * An answer, as the in-flight limit reads it: `fast` is a 2xx within FAST_MS (the receiver keeps up),
 * `steady` a 2xx slower than that, `struggling` anything else (a failure, a refusal, a timeout) or a 2xx
 * slower than SLOW_MS. The thresholds are an endpoint's pace, not its health: a 2xx is a success whatever
 * its time, as before.
 */
export type Answer = 'fast' | 'steady' | 'struggling';

// A receiver that answers within this is keeping up; a loaded one queues and its answers slow first.
const FAST_MS = 250;
// Past this, a 2xx counts as a sign of strain: more concurrent requests would only queue behind it.
const SLOW_MS = 1000;

export function answerOf(outcome: PostOutcome | undefined): Answer {
  if (!outcome || outcome.kind !== 'response' || outcome.status < 200 || outcome.status >= 300) return 'struggling';
  if (outcome.durationMs <= FAST_MS) return 'fast';
  return outcome.durationMs <= SLOW_MS ? 'steady' : 'struggling';
}

/**
 * How many attempts one subscription may have in flight: it follows its receiver, as TCP's congestion
 * window follows a path (additive increase, multiplicative decrease). It starts at `base`
 * (WEBHOOK_BASE_IN_FLIGHT_PER_SUBSCRIPTION) and:
 *
 * - grows by one after as many fast answers as the limit, counted only while more in flight could help: the
 *   subscription's attempts were waiting for a slot and the worker had time to send more (a limit that is not
 *   what holds the deliveries back has nothing to learn), never past `max`
 *   (WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION, the bound a partner can count on);
 * - halves on a struggling answer, never below `base`: a failing or slowing endpoint is back near `base`
 *   within a few answers, and one that only ever failed or answered slowly never had more;
 * - holds on a steady answer;
 * - halves, not below `base`, when the worker's connections to the receiver's origin are all busy (`crowded`):
 *   more in flight would only wait inside the client, their time counted as the receiver's.
 *
 * Why: a fixed 10 bounded one subscription at 10 / round trip. A replay to a receiver that kept up ran at
 * 189 events/s with 10 in flight and 450/s with 40 on the same loaded machine (bench replay, 20,000
 * events, 2026-11-27), and over the Internet, with round trips of 50-100 ms, 10 in flight is at most
 * 100-200 deliveries/s whatever the receiver can take. What a worker process uses is its share, the limit
 * divided among the live workers (jobs/delivery-engine.ts), so the bound holds across processes.
 */
export class InFlightLimit {
  private limit: number;
  private fastSinceGrowth = 0;
  /** performance.now() at the last answer: a limit left unused is forgotten (what it learnt may be stale). */
  answeredAt = performance.now();

  constructor(
    readonly base: number,
    readonly max: number,
  ) {
    this.limit = InFlightLimit.starting(base, max);
  }

  /** Where a limit starts, and what a subscription without one gets: the base, within the max. */
  static starting(base: number, max: number): number {
    return Math.min(base, max);
  }

  get value(): number {
    return this.limit;
  }

  /** Back where it started: nothing learnt worth keeping. */
  get atBase(): boolean {
    return this.limit <= this.base;
  }

  /** An answer arrived; `mayGrow`: more in flight could help (attempts wait for a slot, a connection is free). */
  answered(answer: Answer, mayGrow: boolean, { crowded = false }: { crowded?: boolean } = {}): void {
    this.answeredAt = performance.now();
    if (answer === 'struggling' || crowded) {
      this.limit = Math.max(InFlightLimit.starting(this.base, this.max), Math.floor(this.limit / 2));
      this.fastSinceGrowth = 0;
    } else if (answer === 'fast' && mayGrow && this.limit < this.max && ++this.fastSinceGrowth >= this.limit) {
      this.limit++;
      this.fastSinceGrowth = 0;
    }
  }
}
