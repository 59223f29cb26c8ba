import { parseCommandLine, wantsJson, type CommandLine } from '@/server/cli/args';
import { helpJson, helpText } from '@/server/cli/help';
import { createCliLogger } from '@/server/cli/logger';
import { cliContext } from '@/server/cli/operator-context';
import { commandNeeds, type CliIo } from '@/server/cli/commands';
import { print, reportFailure, toFailure } from '@/server/cli/output';
import { readStdinLine } from '@/server/cli/stdin';
import { loadEnv, type Env } from '@/server/config/env';
import { loadSecretBox } from '@/server/crypto/encryption-key';
import type { Logger } from '@/server/logger';
import { openDatabase } from './open-database';
import { createRuntime } from './runtime';

// `npm run admin -- <command> [flags] [--json]`: what operators script (server/cli/help.ts lists them).
// Every command line is checked before the database is opened; each command is one verb in one
// transaction, so a refused command writes nothing.

/** Undone in reverse order on the way out: job queue, pool, then an embedded Postgres this process started. */
const cleanups: Array<() => Promise<unknown>> = [];
let log: Logger | undefined;
const cliIo: CliIo = { stdinLine: () => readStdinLine(), warn: (message) => void process.stderr.write(message + '\n') };

async function main(argv: string[]): Promise<number> {
  const json = wantsJson(argv);
  let line: CommandLine;
  let input: unknown;
  let env: Env;
  try {
    line = parseCommandLine(argv);
    if (line.kind === 'help') {
      await print(json ? JSON.stringify(helpJson(line.command)) : helpText(line.command).trimEnd());
      return 0;
    }
    input = line.command.input(line.flags);
    if (line.command.fromStdin) input = await line.command.fromStdin(input, cliIo);
    env = loadEnv();
  } catch (e) {
    return reportFailure(json, toFailure(e));
  }

  const { command } = line;
  log = createCliLogger(process.env.LOG_LEVEL ? env.LOG_LEVEL : undefined);
  try {
    // One command needs one or two connections, whatever pool the service is configured with.
    const cliEnv: Env = { ...env, DB_POOL_MAX: 2 };
    // adoptOrphans false: an embedded server another live process (`npm start`) runs is used, never stopped.
    const db = await openDatabase(cliEnv, log, { adoptOrphans: false });
    if (db.embedded) cleanups.push(() => db.embedded!.stop());
    let boss;
    if (commandNeeds(command, 'needsJobQueue', input)) {
      // Loaded only here: the other commands need neither pg-boss nor the job definitions.
      const [{ startBoss }, { createQueues }] = await Promise.all([import('@/jobs/boss'), import('@/jobs/registry')]);
      boss = await startBoss({ databaseUrl: db.url, log, supervise: false });
      const started = boss;
      cleanups.push(() => started.stop({ graceful: true, timeout: 5000, wait: true }));
      await createQueues(boss);
    }
    const secretBox = commandNeeds(command, 'needsSecretBox', input) ? loadSecretBox(env) : undefined;
    const rt = createRuntime({ env: cliEnv, databaseUrl: db.url, log, boss, secretBox });
    cleanups.push(() => rt.close());
    // Before the pool and pg-boss close: the workers of the running service are woken for what the command enqueued.
    cleanups.push(() => rt.jobs.wakesSent());
    const result = await command.run(cliContext(rt), input);
    await print(json ? JSON.stringify(result) : command.describe(result, input));
    return 0;
  } catch (e) {
    return reportFailure(json, toFailure(e));
  } finally {
    await cleanUp();
  }
}

async function cleanUp(): Promise<void> {
  for (let fn = cleanups.pop(); fn; fn = cleanups.pop()) {
    await fn().catch((e: unknown) => log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'admin CLI clean-up failed'));
  }
}

// Ctrl-C mid-command: the open transaction rolls back when the pool closes; an embedded Postgres
// this process started is stopped rather than left running.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(code)));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
