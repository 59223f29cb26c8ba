import { loadEnvOrExit } from '@/server/config/env';
import { startProcess } from './start-process';

// `npm run worker`: job workers only, no HTTP server. Run as many as needed beside the web tier.
async function main(): Promise<void> {
  const env = loadEnvOrExit();
  const service = await startProcess(env, { web: false, workers: true });
  console.log('worker ready');
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error('worker start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
