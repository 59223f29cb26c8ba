import { loadEnvOrExit } from '@/server/config/env';
import { exitOnSignals } from './signals';
import { startProcess, type RunningProcess } from './start-process';

// `npm run worker`: job workers only, no HTTP server. Run as many as needed beside the web tier.
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  const state: { service?: RunningProcess } = {};
  exitOnSignals(() => state.service, env.SHUTDOWN_TIMEOUT_MS);
  state.service = await startProcess(env, { web: false, workers: true }, { replayThread: true });
  const { metricsUrl } = state.service;
  console.log(metricsUrl ? `worker ready, metrics at ${metricsUrl}` : 'worker ready');
}

main().catch((error: unknown) => {
  console.error('worker start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
