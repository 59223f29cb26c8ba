import type { BenchDatabase } from './database';
import type { BenchOptions } from './options';

export interface BenchContext {
  options: BenchOptions;
  /** The database every side of every scenario uses (migrated). */
  database: BenchDatabase;
  /** Runs `fn` at the end, or on Ctrl-C: stop what the scenario started. Latest registered runs first. */
  onCleanup(fn: () => Promise<void>): void;
}

/**
 * One figure the product claims, beside what it is measured against in the same run (a baseline
 * server, the lean process, the receiver alone, the small-table run), so no figure stands alone.
 */
export interface Figure {
  /** What was measured, e.g. "quote+order pairs/s", "p99 ms", "deliveries/s". */
  metric: string;
  /** Who was measured: "as started" (the default `npm start` process), "lean", "baseline", ... */
  side: string;
  value: number;
  /** The reference measured in the same run, and value ÷ reference. */
  against?: { side: string; value: number; ratio: number };
  /** The aim, in words ("ratio >= 0.5", "p99 < 50 ms"), and whether this run met it. */
  aim?: string;
  met?: boolean;
}

export interface ScenarioOutcome {
  /** Correctness problems (non-2xx responses, socket errors, lost events): they make `npm run bench` exit 1. */
  failures: string[];
  /** The figures for the summary table and bench/results/latest.json. */
  figures?: Figure[];
  /** What costs most, and what was done about it: one line each, shown under the scenario's figures. */
  notes?: string[];
}

/** One named benchmark. `npm run bench -- <name>` runs only the named ones. */
export interface Scenario {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome>;
}

/** A figure measured against a reference in the same run; `higherIsBetter` decides how an aim on the ratio reads. */
export function figure(
  metric: string,
  side: string,
  value: number,
  against?: { side: string; value: number },
  aim?: { text: string; met: (value: number, ratio: number) => boolean },
): Figure {
  const ratio = against ? value / against.value : NaN;
  return {
    metric,
    side,
    value,
    ...(against ? { against: { ...against, ratio } } : {}),
    ...(aim ? { aim: aim.text, met: aim.met(value, ratio) } : {}),
  };
}
