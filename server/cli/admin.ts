import { EnvError, loadEnv, type Env } from '../config/env';
import { resolveDatabase } from '../database';
import { AppError, isDatabaseUnavailable } from '../errors';
import type { Logger } from '../logger';
import { closeRuntime, initRuntime } from '../runtime';
import { parseCommandLine, wantsJson, type CommandLine } from './args';
import { helpJson, helpText } from './help';
import { createCliLogger } from './logger';
import { cliContext } from './operator-context';
import { UsageError } from './usage-error';

// `npm run admin -- <command> [flags] [--json]`: what operators script (see help.ts for the list).
// Every command line is checked before the database is opened; each command is one verb in one
// transaction, so a refused command writes nothing.

interface Failure {
  exitCode: 1 | 2;
  code: string;
  message: string;
  param?: string;
}

/** Undone in reverse order on the way out: job queue, pool, then an embedded Postgres this process started. */
const cleanups: Array<() => Promise<unknown>> = [];
let log: Logger | undefined;

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
    env = loadEnv();
  } catch (e) {
    return fail(json, toFailure(e));
  }

  const { command } = line;
  log = createCliLogger(process.env.LOG_LEVEL ? env.LOG_LEVEL : undefined);
  try {
    // One command needs one or two connections, whatever pool the service is configured with.
    const cliEnv: Env = { ...env, DB_POOL_MAX: 2 };
    // adoptOrphans false: an embedded server another live process (`npm start`) runs is used, never stopped.
    const db = await resolveDatabase(cliEnv, log, { adoptOrphans: false });
    if (db.embedded) cleanups.push(() => db.embedded!.stop());
    const rt = initRuntime(cliEnv, db.url, log);
    cleanups.push(() => closeRuntime());
    if (command.needsJobQueue) {
      // Loaded only here: the other commands need neither pg-boss nor the job definitions.
      const [{ startBoss }, { createQueues }] = await Promise.all([import('@/jobs/boss'), import('@/jobs/registry')]);
      const boss = await startBoss({ databaseUrl: db.url, log, schedule: false });
      cleanups.push(() => boss.stop({ graceful: true, timeout: 5000, wait: true }));
      await createQueues(boss);
      rt.boss = boss;
    }
    const result = await command.run(cliContext(rt), input);
    await print(json ? JSON.stringify(result) : command.describe(result, input));
    return 0;
  } catch (e) {
    return fail(json, toFailure(e));
  } finally {
    await cleanUp();
  }
}

async function cleanUp(): Promise<void> {
  for (let fn = cleanups.pop(); fn; fn = cleanups.pop()) {
    await fn().catch((e: unknown) => log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'admin CLI clean-up failed'));
  }
}

function toFailure(e: unknown): Failure {
  if (e instanceof UsageError) return { exitCode: 2, code: e.code, message: e.message, param: e.param };
  if (e instanceof EnvError) return { exitCode: 2, code: 'invalid_environment', message: e.message.replace(/:?\n\s*/g, ': ').trim() };
  if (e instanceof AppError) {
    // A verb's own validation (the CLI checks flags first, so rarely reached) is a bad command line too.
    if (e.kind === 'invalid_request') return { exitCode: 2, code: e.code, message: e.message, param: e.details.param };
    // Not found, conflict: the API's `param` ("id") names no flag here, so it is left out.
    return { exitCode: 1, code: e.code, message: e.message };
  }
  const message = e instanceof Error ? e.message : String(e);
  if (isDatabaseUnavailable(e)) return { exitCode: 1, code: 'database_unavailable', message: `The database is unreachable: ${message}` };
  return { exitCode: 1, code: 'internal_error', message };
}

async function fail(json: boolean, f: Failure): Promise<number> {
  process.stderr.write(`error: ${f.message}\n`);
  if (json) await print(JSON.stringify({ error: { code: f.code, message: f.message, ...(f.param ? { param: f.param } : {}) } }));
  return f.exitCode;
}

function print(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text + '\n', () => resolve()));
}

// Ctrl-C mid-command: the open transaction rolls back when the pool closes; an embedded Postgres
// this process started is stopped rather than left running.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(code)));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
