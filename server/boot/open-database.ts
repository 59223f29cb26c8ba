import { startEmbeddedPostgres, type EmbeddedHandle } from '@/db/embedded/start';
import { runMigrations } from '@/db/migrate';
import type { Env } from '@/server/config/env';
import type { Logger } from '@/server/logger';

export interface OpenedDatabase {
  url: string;
  /** Set when the database is the embedded default under DATA_DIR. */
  embedded?: EmbeddedHandle;
}

/** DATABASE_URL when set; otherwise the embedded Postgres under DATA_DIR. Migrations are applied either way. */
export async function openDatabase(env: Env, log: Logger, opts: { adoptOrphans?: boolean } = {}): Promise<OpenedDatabase> {
  let resolved: OpenedDatabase;
  if (env.DATABASE_URL) {
    resolved = { url: env.DATABASE_URL };
  } else {
    const embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, adoptOrphans: opts.adoptOrphans, log: (line) => log.info(line) });
    resolved = { url: embedded.url, embedded };
  }
  try {
    await runMigrations(resolved.url);
  } catch (e) {
    // Do not leave an embedded server this process started running behind a failed start.
    await resolved.embedded?.stop();
    throw e;
  }
  return resolved;
}
