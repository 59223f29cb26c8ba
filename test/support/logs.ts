import { createLogger, type Logger } from '@/server/logger';

/** A logger whose JSON lines are kept in memory, for tests that check what the service logs. */
export function captureLogs(level = 'info'): { log: Logger; lines: string[]; entries(): Record<string, unknown>[] } {
  const lines: string[] = [];
  const log = createLogger(level, { destination: { write: (line: string) => void lines.push(line) } });
  return { log, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
