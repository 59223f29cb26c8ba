import { openBenchDatabase, type BenchDatabase } from './database';
import { parseOptions, UsageError, USAGE, type BenchOptions } from './options';
import { summaryTable, writeResults, type ScenarioResult } from './results';
import type { BenchContext } from './scenario';
import { scenarios } from './scenarios';

// `npm run bench [-- scenario... --duration=S --rounds=N --profile]`: runs the named scenarios
// (bench/scenarios.ts) against one database, each side of a comparison in its own process.

const cleanups: (() => Promise<void>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    await fn().catch((e: unknown) => console.error('clean-up failed:', e instanceof Error ? e.message : e));
  }
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  if (options.list) {
    for (const s of scenarios) console.log(`${s.name}\n  ${s.description}`);
    return 0;
  }
  const unknown = options.scenarios.filter((name) => !scenarios.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`);
    return 2;
  }
  const selected = options.scenarios.length === 0 ? scenarios : scenarios.filter((s) => options.scenarios.includes(s.name));

  // A second signal while cleaning up is ignored, not fatal: the service processes are detached, and a
  // bench killed with its npm and tsx wrappers (each signal relayed) left them running for hours.
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping the servers and the database...`);
    void cleanUp().then(() => process.exit(130));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);

  const startedAt = performance.now();
  const database: BenchDatabase = await openBenchDatabase();
  cleanups.push(() => database.stop());
  const failures: string[] = [];
  const results: Record<string, ScenarioResult> = {};
  try {
    for (const scenario of selected) {
      const scenarioStartedAt = performance.now();
      console.log(`\n=== ${scenario.name}${options.profile ? ' (profile)' : ''}: ${scenario.description}\n`);
      const scenarioCleanups: (() => Promise<void>)[] = [];
      cleanups.push(async () => {
        while (scenarioCleanups.length > 0) await scenarioCleanups.pop()!().catch(() => {});
      });
      const ctx: BenchContext = { options, database, onCleanup: (fn) => scenarioCleanups.push(fn) };
      try {
        const outcome = await scenario.run(ctx);
        failures.push(...outcome.failures);
        for (const note of outcome.notes ?? []) console.log(`  note: ${note}`);
        results[scenario.name] = {
          at: new Date().toISOString(),
          seconds: Math.round((performance.now() - scenarioStartedAt) / 1000),
          figures: outcome.figures ?? [],
          notes: outcome.notes ?? [],
          failures: outcome.failures,
        };
      } catch (e) {
        failures.push(`${scenario.name}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        await cleanups.pop()!();
      }
    }
  } finally {
    await cleanUp();
  }
  if (Object.keys(results).length > 0 && !options.profile) {
    console.log(`\nEvery figure of this run, beside what it was measured against in the same run:\n${summaryTable(results)}`);
    console.log(`\nWritten to ${writeResults(database, options, results)}.`);
  }
  console.log(`\nDone in ${((performance.now() - startedAt) / 1000).toFixed(0)} s.`);
  if (failures.length > 0) {
    console.error(`\nFAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error('bench failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    await cleanUp();
    process.exit(1);
  },
);
