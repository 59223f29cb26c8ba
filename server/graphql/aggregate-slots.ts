/**
 * At most `size` aggregates run at once in this process; the rest wait in arrival order, each until its
 * operation's deadline. An aggregate holds a pool connection for each statement it runs (overview runs
 * five in a row): with DB_POOL_MAX 10 and two slots, eight connections stay for partners however many
 * operators load the overview at once.
 */
export class AggregateSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    await this.take(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', giveUp);
        this.running++;
        resolve();
      };
      const giveUp = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      this.waiting.push(turn);
      signal.addEventListener('abort', giveUp, { once: true });
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}
