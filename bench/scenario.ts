import type { BenchDatabase } from './database';
import type { BenchOptions } from './options';

export interface BenchContext {
  options: BenchOptions;
  /** The database every side of every scenario uses (migrated). */
  database: BenchDatabase;
  /** Runs `fn` at the end, or on Ctrl-C: stop what the scenario started. Latest registered runs first. */
  onCleanup(fn: () => Promise<void>): void;
}

export interface ScenarioOutcome {
  /** Correctness problems (non-2xx responses, socket errors): they make `npm run bench` exit 1. */
  failures: string[];
}

/** One named benchmark. `npm run bench -- <name>` runs only the named ones. */
export interface Scenario {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome>;
}
