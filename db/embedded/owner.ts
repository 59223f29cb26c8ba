import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pidRunning, procStat } from './proc';

/** pg-owner: "<pid> <start time>" of the process that stops the server; the start time tells a reused pid apart. */
export function ownerAlive(root: string): boolean {
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

export function writeOwner(root: string): Promise<void> {
  return writeFile(path.join(root, 'pg-owner'), `${process.pid} ${procStat(process.pid)?.startTime ?? ''}`.trim() + '\n');
}
