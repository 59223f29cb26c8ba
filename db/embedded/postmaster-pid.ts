import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cmdline, pidRunning } from './proc';

/** postmaster.pid: line 1 the pid, line 4 the port, line 8 the state ("starting", "ready", "stopping"). */
export function postmasterStatus(pgData: string): { pid: number; port: number; state: string } | undefined {
  try {
    const lines = readFileSync(path.join(pgData, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]), state: (lines[7] ?? '').trim() };
  } catch {
    return undefined;
  }
}

/**
 * postmaster.pid: line 1 the pid, line 4 the port. A stale file (dead pid, or a pid reused by another
 * program, another Postgres included) is removed.
 */
export function runningServer(pgData: string): { pid: number; port: number } | undefined {
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
