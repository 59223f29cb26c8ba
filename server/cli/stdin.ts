import type { Readable } from 'node:stream';

const MAX_LINE = 1024;

/**
 * The first line piped to the CLI (`printf '%s\n' "$PW" | npm run admin -- ...`), without its line
 * ending; undefined when stdin is a terminal (nothing was piped) or ends before any byte (/dev/null,
 * as under cron). Reads at most 1 KiB: a password is one short line.
 */
export async function readStdinLine(stdin: Readable & { isTTY?: boolean } = process.stdin): Promise<string | undefined> {
  if (stdin.isTTY) return undefined;
  let text = '';
  let any = false;
  for await (const chunk of stdin) {
    any = true;
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n') || text.length > MAX_LINE) break;
  }
  stdin.destroy();
  if (!any) return undefined;
  return text
    .split('\n')[0]!
    .replace(/\r$/, '')
    .slice(0, MAX_LINE + 1);
}
