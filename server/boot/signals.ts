import { constants as osConstants } from 'node:os';
import type { RunningProcess } from './start-process';

// Drain time plus this: closing pools, pg-boss and the embedded Postgres after the drain.
const CLOSE_MARGIN_MS = 10_000;
// One Ctrl-C can arrive twice: from the terminal (to the whole process group) and relayed by npm,
// which runs `npm start`'s command in a child process; both land within milliseconds. A signal later than
// this is an operator's second one: "stop waiting".
const DUPLICATE_WINDOW_MS = 1000;

/**
 * SIGTERM and SIGINT drain the process and exit 0 (1 if closing failed); a second signal exits at
 * once with 128 + its number. Installed before start-up, so that a signal during it (initdb,
 * migrations, the first console build) exits at once; exit hooks stop the embedded Postgres and the
 * build it started. `service()` is undefined until start-up is done.
 */
export function exitOnSignals(service: () => RunningProcess | undefined, deadlineMs: number): void {
  let stoppingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = 128 + osConstants.signals[signal];
    const running = service();
    if (!running) {
      console.error(`${signal} during start-up: exiting`);
      process.exit(code);
    }
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < DUPLICATE_WINDOW_MS) return;
      console.error(`second ${signal} while draining: exiting now, without waiting for requests or webhook attempts in flight`);
      process.exit(code);
    }
    stoppingSince = performance.now();
    setTimeout(() => {
      console.error(`shutdown took over ${deadlineMs + CLOSE_MARGIN_MS} ms: exiting anyway`);
      process.exit(1);
    }, deadlineMs + CLOSE_MARGIN_MS).unref();
    running.stop({ deadlineMs, reason: signal }).then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('shutdown failed:', e instanceof Error ? e.message : e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
