import { loadEnvOrExit } from '@/server/config/env';
import { printBanner } from './banner';
import { exitOnSignals } from './signals';
import { startProcess, type RunningProcess } from './start-process';

// `npm start`: web tier and workers in one process (WORKERS=off: web only; `npm run worker`: workers only).
async function main(): Promise<void> {
  const env = loadEnvOrExit();

  const state: { service?: RunningProcess } = {};
  exitOnSignals(() => state.service, env.SHUTDOWN_TIMEOUT_MS);

  state.service = await startProcess(env, { web: true, workers: env.WORKERS === 'on' }, { replayThread: true });
  // performance.now() counts from the process's start: module loading is part of what a newcomer waits for.
  printBanner(state.service, env, performance.now());
}

main().catch((error: unknown) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
