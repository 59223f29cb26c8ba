import { readFileSync } from 'node:fs';

export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** /proc/<pid>/stat: state (R, S, Z...) and start time (clock ticks since boot), or undefined when gone. */
export function procStat(pid: number): { state: string; startTime: string } | undefined {
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
export function pidRunning(pid: number): boolean {
  const st = procStat(pid);
  return st !== undefined && st.state !== 'Z' && st.state !== 'X';
}
