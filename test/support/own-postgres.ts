import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedHandle } from '@/db/embedded/start';
import { runMigrations } from '@/db/migrate';

/**
 * An embedded Postgres of the test file's own (not the run's shared one), migrated, that the test may
 * stop and start again on the same data directory and port: for outages and restarts under load.
 */
export async function startOwnPostgres(prefix: string) {
  const dir = await mkdtemp(path.join(tmpdir(), `pdp-${prefix}-`));
  // The postgres OS user must enter it (mkdtemp makes 0700).
  await chmod(dir, 0o755);
  let pg: EmbeddedHandle | undefined = await startEmbeddedPostgres({ dataDir: dir });
  const url = pg.url;
  const port = Number(new URL(url).port);
  await runMigrations(url);
  return {
    url,
    port,
    get running() {
      return pg !== undefined;
    },
    async stop(): Promise<void> {
      await pg?.stop();
      pg = undefined;
    },
    async start(): Promise<void> {
      pg ??= await startEmbeddedPostgres({ dataDir: dir, port });
    },
    async remove(): Promise<void> {
      await this.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
