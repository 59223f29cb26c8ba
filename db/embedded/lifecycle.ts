import { constants as osConstants } from 'node:os';
import { pidRunning } from './proc';

/**
 * The servers this process owns (started or adopted), process-wide: test runners evaluate this
 * module once per test file, but signal and exit handlers must be installed once.
 */
export interface Lifecycle {
  owned: Set<number>;
}

const LIFECYCLE = Symbol.for('partner-delivery.embedded-postgres');

export function installLifecycle(): Lifecycle {
  const g = globalThis as { [LIFECYCLE]?: Lifecycle };
  if (g[LIFECYCLE]) return g[LIFECYCLE];
  const lifecycle: Lifecycle = { owned: new Set() };
  g[LIFECYCLE] = lifecycle;
  // On any exit (process.exit, an uncaught error), ask owned servers for a fast shutdown. A signal
  // only sends one; the process cannot wait in an `exit` handler.
  process.on('exit', () => {
    for (const pid of lifecycle.owned) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    }
  });
  // A process with signal handlers of its own (server/boot/web.ts, the admin CLI) shuts down in its own
  // order: HTTP, job queue, pool, then Postgres. Without them, stop the servers and exit as the
  // signal would have.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return;
      void Promise.all([...lifecycle.owned].map((pid) => stopPid(pid))).finally(() => process.exit(128 + osConstants.signals[signal]));
    });
  }
  return lifecycle;
}

/** Fast shutdown (SIGINT); after 10 s an immediate one (SIGQUIT). Resolves once the process is gone. */
export async function stopPid(pid: number): Promise<void> {
  const started = Date.now();
  let signal: NodeJS.Signals = 'SIGINT';
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  while (pidRunning(pid)) {
    if (signal === 'SIGINT' && Date.now() - started > 10_000) {
      signal = 'SIGQUIT';
      try {
        process.kill(pid, signal);
      } catch {
        return;
      }
    }
    if (Date.now() - started > 20_000) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}
