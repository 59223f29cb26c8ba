import { EnvError, loadEnv } from './config/env';
import { startService, type Service } from './service';
import { printBanner } from './banner';

// `npm start`: web tier and workers in one process (WORKERS=off: web only; `npm run worker`: workers only).
async function main(): Promise<void> {
  let env;
  try {
    env = loadEnv();
  } catch (e) {
    if (e instanceof EnvError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const startedAt = performance.now();
  const service: Service = await startService(env, { web: true, workers: env.WORKERS === 'on' });
  printBanner(service, env, performance.now() - startedAt);
  const shutdown = (signal: string) => {
    service.rt.log.info({ signal }, 'shutting down');
    void service.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
