import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '@/db/embedded/free-port';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ChildServer {
  name: string;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  pid: number;
  /** The last few KB the process wrote to stderr, for failure messages. */
  stderr(): string;
  /** SIGTERM (a graceful stop: profiles are written on exit), SIGKILL after 15 s. */
  stop(): Promise<void>;
}

const STDERR_KEEP = 16 * 1024;

/**
 * `node [node flags] --import tsx <script>` (as package.json's scripts run the service) in a process (group) of its own, so the load generator never shares its event loop.
 * stdout goes to /dev/null: the service logs every request there (pino, synchronous writes), as it
 * would to a log collector's pipe, without the bench having to read it. stderr is kept for errors.
 * Resolves once GET /healthz answers 200.
 */
export async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  options: {
    nodeArgs?: string[];
    cwd?: string;
    /**
     * Where stdout goes: `discard` (/dev/null, as to a log collector's file), or `read`: a pipe this
     * process reads and drops, as a terminal reads `npm start`'s log lines (the writes then cost
     * what a pipe costs, and may wait for the reader).
     */
    stdout?: 'discard' | 'read';
    /** Ready once stdout prints this, instead of once it answers /healthz: a worker process serves no HTTP. */
    readyLine?: RegExp;
  } = {},
): Promise<ChildServer> {
  const cwd = options.cwd ?? REPO_ROOT;
  const port = await freePort();
  // tsx's loader from the tree it runs (a candidate's clone may have none: then this one's).
  const withTsx = [cwd, REPO_ROOT].find((dir) => existsSync(path.join(dir, 'node_modules/tsx/package.json')))!;
  const tsxLoader = pathToFileURL(createRequire(path.join(withTsx, 'package.json')).resolve('tsx')).href;
  const devNull = options.stdout === 'read' || options.readyLine ? undefined : openSync('/dev/null', 'w');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', tsxLoader, script], {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', devNull ?? 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  if (devNull === undefined)
    child.stdout!.on('data', (chunk: Buffer) => {
      if (options.readyLine && !options.readyLine.test(printed)) printed = (printed + chunk.toString()).slice(-STDERR_KEEP);
    });
  else closeSync(devNull);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const signal = (sig: NodeJS.Signals) => {
    try {
      // The whole group: the script and whatever it started in it.
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (!alive()) return;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    })());

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (!alive())
      throw new Error(`${name} exited during start-up (code ${child.exitCode}, signal ${child.signalCode}); stderr:\n${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} was not ready within 90 s; stderr:\n${stderr}`);
    }
    const ok = options.readyLine
      ? options.readyLine.test(printed)
      : await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url, pid: child.pid!, stderr: () => stderr, stop };
}
