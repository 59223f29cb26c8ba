import { readdirSync, readFileSync } from 'node:fs';

// What the tests that run the service as a newcomer does (test/start/) share: a newcomer's shell, and finding
// what such a run left behind.

/** A newcomer's shell: none of the test runner's variables (NODE_ENV=test, VITEST...), no DATABASE_URL. */
export function newcomerEnv(dataDir: string, port: number, extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === 'DATABASE_URL' || k === 'NODE_ENV' || k === 'CONSOLE' || k.startsWith('VITEST') || k.startsWith('TEST_'))
      continue;
    env[k] = v;
  }
  Object.assign(env, { DATA_DIR: dataDir, PORT: String(port) });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  // (Next's types declare NODE_ENV required; a newcomer's shell has none.)
  return env as NodeJS.ProcessEnv;
}

/** Pids of live processes whose command line names `dir` (the embedded Postgres runs `postgres -D <dir>/pg`). */
export function processesUsing(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.split('\0').some((arg) => arg.startsWith(dir))) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}
