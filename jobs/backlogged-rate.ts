// How much a rate moves towards each window's measurement (exponentially weighted).
const WEIGHT = 0.3;

/**
 * Completions per second while work was waiting: the pace a process, or one subscription, keeps
 * when it has more to do. Windows in which nothing waited leave it as it was, so an idle spell
 * between bursts does not make the next burst start from nothing.
 */
export class BackloggedRate {
  private count = 0;
  private since = performance.now();
  private wasBacklogged = false;
  private rate: number | undefined;

  done(): void {
    this.count++;
  }

  /**
   * Ends a window; `backlogged`: work is waiting now. The window counts if work was waiting at its
   * start too, or if there is no measurement yet: a window whose backlog began midway understates the
   * pace, and a pace too low only keeps less waiting, so the first one is taken as it comes.
   */
  sample(backlogged: boolean): void {
    const now = performance.now();
    if (backlogged && (this.wasBacklogged || this.rate === undefined) && this.count > 0 && now > this.since) {
      const measured = (this.count * 1000) / (now - this.since);
      this.rate = this.rate === undefined ? measured : this.rate + WEIGHT * (measured - this.rate);
    }
    this.count = 0;
    this.since = now;
    this.wasBacklogged = backlogged;
  }

  /** Undefined until a backlogged window was measured. */
  get perSecond(): number | undefined {
    return this.rate;
  }
}
