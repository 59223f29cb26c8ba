import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import type { BenchDatabase } from './database';
import type { BenchOptions } from './options';
import { REPO_ROOT } from './processes';
import type { Figure } from './scenario';
import { ratio, table } from './table';

export const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results', 'latest.json');

export interface ScenarioResult {
  at: string;
  seconds: number;
  figures: Figure[];
  notes: string[];
  failures: string[];
}

export interface Results {
  machine: { cpus: number; model: string; memoryGiB: number; node: string; os: string; database: string };
  commit: string;
  options: Pick<BenchOptions, 'durationSeconds' | 'rounds' | 'connections'>;
  scenarios: Record<string, ScenarioResult>;
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${sha}+changes` : sha;
  } catch {
    return 'unknown';
  }
}

/**
 * bench/results/latest.json: the scenarios of this run replace their earlier entries, the others
 * stay (`npm run bench -- orders` refreshes one), with the machine they ran on.
 */
export function writeResults(database: BenchDatabase, options: BenchOptions, run: Record<string, ScenarioResult>): string {
  const previous: Results | undefined = existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results) : undefined;
  const results: Results = {
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      os: `${process.platform} ${process.arch}`,
      database: database.description.replace(/ in \/\S+.*$/, ''),
    },
    commit: commit(),
    options: { durationSeconds: options.durationSeconds, rounds: options.rounds, connections: options.connections },
    scenarios: { ...previous?.scenarios, ...run },
  };
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return RESULTS_FILE;
}

const figureValue = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n < 10 ? 2 : 1));

/** Every figure of the run, one line each, beside its reference and the ratio. */
export function summaryTable(run: Record<string, ScenarioResult>): string {
  const rows = Object.entries(run).flatMap(([scenario, r]) =>
    r.figures.map((f) => [
      scenario,
      f.metric,
      f.side,
      figureValue(f.value),
      f.against ? `${f.against.side} ${figureValue(f.against.value)}` : '',
      f.against ? ratio(f.against.ratio) : '',
      f.aim ? `${f.aim}: ${f.met ? 'met' : 'MISSED'}` : '',
    ]),
  );
  return table(['scenario', 'figure', 'side', 'value', 'against', 'ratio', 'aim'], rows, { indent: '  ' });
}
