import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from '@/db/embedded/start';
import { runMigrations } from '@/db/migrate';

export interface BenchDatabase {
  url: string;
  /** For the report: where the data lives. */
  description: string;
  /** A small admin connection for the bench itself (CHECKPOINT between runs, row counts). */
  admin: postgres.Sql;
  /** The postmaster's pid when the server runs on this machine (to read its CPU time), else undefined. */
  serverPid?: number;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set (left in place; only the bench's own rows are added), otherwise a fresh
 * embedded PostgreSQL in a temporary directory, stopped and removed by stop(). Migrated either way.
 */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  if (given) {
    await runMigrations(given);
    const admin = postgres(given, { max: 1, onnotice: () => {} });
    return {
      url: given,
      description: 'DATABASE_URL',
      admin,
      serverPid: await localPostmaster(admin),
      stop: () => admin.end({ timeout: 2 }),
    };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-pg-'));
  // When run as root, Postgres runs as the `postgres` user: it must be able to enter the directory.
  await chmod(dir, 0o755);
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  try {
    embedded = await startEmbeddedPostgres({ dataDir: dir });
    await runMigrations(embedded.url);
  } catch (error) {
    await embedded?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const handle = embedded;
  const admin = postgres(handle.url, { max: 1, onnotice: () => {} });
  const [version] = await admin<{ server_version: string }[]>`show server_version`;
  return {
    url: handle.url,
    description: `embedded PostgreSQL ${version?.server_version ?? ''} in ${dir} (removed at the end)`,
    admin,
    serverPid: await localPostmaster(admin),
    stop: async () => {
      await admin.end({ timeout: 2 }).catch(() => {});
      await handle.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The postmaster of our connection's backend, when that backend is a local process (ppid of pg_backend_pid()). */
async function localPostmaster(admin: postgres.Sql): Promise<number | undefined> {
  try {
    const [row] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const backend = row!.pid;
    const isPostgres = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres');
    if (!isPostgres(backend)) return undefined;
    const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return isPostgres(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
