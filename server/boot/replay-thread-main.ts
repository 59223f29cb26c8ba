import { parentPort, workerData } from 'node:worker_threads';
import type { Env } from '@/server/config/env';
import { createLogger } from '@/server/logger';
import { forwardingMetrics, lowerThisThreadsPriority, POOL_REPORT_MS } from './replay-thread';
import { startProcess, type StopOptions } from './start-process';

// The replay thread (server/boot/replay-thread.ts): a worker-only process of the service inside its parent's,
// working the replays' pages alone. Its log lines say `thread: replays`; its metrics go to the parent's registry.
const port = parentPort!;
const { env } = workerData as { env: Env };
const log = createLogger(env.LOG_LEVEL).child({ thread: 'replays' });
const metrics = forwardingMetrics((calls) => port.postMessage({ kind: 'metrics', calls }));
lowerThisThreadsPriority(log);

try {
  const running = await startProcess(env, { web: false, workers: true }, { log, reportTo: metrics });
  port.on('message', (message: { kind: 'stop'; options: StopOptions }) => {
    void running
      .stop(message.options)
      .catch((err: unknown) => void log.error({ err }, 'the replay thread did not stop cleanly'))
      .then((report) => {
        metrics.flush();
        port.postMessage({ kind: 'stopped', report });
        // Ends the thread (not the process), after the logger's exit hook wrote its last lines.
        process.exit(0);
      });
  });
  // Its pool's usage, for the process's pool gauges (pool="replays"): the process cannot ask for it at a scrape.
  const reportPool = () => port.postMessage({ kind: 'pool', usage: running.rt.poolUsages().primary });
  reportPool();
  setInterval(reportPool, POOL_REPORT_MS).unref();
  port.postMessage({ kind: 'ready' });
} catch (error) {
  port.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
