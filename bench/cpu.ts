import { readFileSync } from 'node:fs';

// CPU time (user + system, all threads) of a process and its descendants, from /proc. Unlike
// throughput it barely depends on how busy the rest of the machine is, so it compares sides fairly
// on a noisy machine. Linux only; undefined elsewhere or when the process is gone.

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node runs on

export function processTreeCpuMs(rootPid: number | undefined): number | undefined {
  if (rootPid === undefined) return undefined;
  let total = 0;
  let found = false;
  const stack = [rootPid];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const ticks = ownTicks(pid);
    if (ticks === undefined) continue;
    found = true;
    total += ticks;
    stack.push(...childrenOf(pid));
  }
  return found ? (total * 1000) / TICKS_PER_SECOND : undefined;
}

function ownTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3, utime 14,
    // stime 15, cutime 16 and cstime 17: the CPU of children that exited (e.g. Postgres backends of closed
    // connections), so that the sum over the tree never goes down.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  } catch {
    return out;
  }
  for (const t of tasks) if (t) out.push(Number(t));
  return out;
}
