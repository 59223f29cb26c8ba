import { constants as osConstants } from 'node:os';
import { loadEnvOrExit } from '@/server/config/env';
import { printBanner } from './banner';
import { startProcess, type RunningProcess } from './start-process';

// `npm start`: web tier and workers in one process (WORKERS=off: web only; `npm run worker`: workers only).
async function main(): Promise<void> {
  const env = loadEnvOrExit();

  // Installed before start-up, so that Ctrl-C or SIGTERM during it (initdb, migrations, the first
  // console build) exits at once; exit hooks stop the embedded Postgres and the build it started.
  const state: { service?: RunningProcess; stoppingSince?: number } = {};
  const shutdown = (signal: NodeJS.Signals) => {
    const code = 128 + osConstants.signals[signal];
    const { service } = state;
    if (!service) {
      console.error(`${signal} during start-up: exiting`);
      process.exit(code);
    }
    if (state.stoppingSince !== undefined) {
      // One Ctrl-C can arrive twice: from the terminal (to the whole process group) and relayed by
      // tsx, which runs this file in a child process. A second one seconds later means "stop waiting".
      if (performance.now() - state.stoppingSince < 2000) return;
      process.exit(code);
    }
    state.stoppingSince = performance.now();
    service.rt.log.info({ signal }, 'shutting down');
    // Requests in flight get a few seconds; the job queue waits up to 5 s for running jobs.
    setTimeout(() => {
      console.error('shutdown took over 20 s: exiting anyway');
      process.exit(1);
    }, 20_000).unref();
    service.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('shutdown failed:', e instanceof Error ? e.message : e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  state.service = await startProcess(env, { web: true, workers: env.WORKERS === 'on' });
  // performance.now() counts from the process's start: module loading is part of what a newcomer waits for.
  printBanner(state.service, env, performance.now());
}

main().catch((error: unknown) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
