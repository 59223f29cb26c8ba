import { COMMANDS, usageLine, type Command } from './commands';

export function helpText(command?: Command): string {
  if (command) {
    return [`Usage: npm run admin -- ${usageLine(command)} [--json]`, '', `  ${command.summary}`, ''].join('\n');
  }
  const lines = COMMANDS.flatMap((c) => [`  ${usageLine(c)}`, `      ${c.summary}`]);
  return [
    'Usage: npm run admin -- <command> [flags] [--json]',
    '',
    'Commands:',
    ...lines,
    '  help [<command>]',
    "      This text, or one command's (also: <command> --help).",
    '',
    'Flags:',
    '  --json   print exactly one JSON object on stdout; a refusal prints {"error": {"code", "message", "param"?}}',
    '',
    'Database: DATABASE_URL when set; otherwise the embedded Postgres under DATA_DIR (default .data), reused',
    'when `npm start` runs it, else started for this command and stopped after it. Migrations are applied.',
    'Exit codes: 0 done; 1 refused (not found, conflict, database unreachable); 2 bad command line or environment.',
    '',
  ].join('\n');
}

/** The --json form of help, for scripts that want the command list. */
export function helpJson(command?: Command) {
  const list = command ? [command] : COMMANDS;
  return { commands: list.map((c) => ({ command: c.words.join(' '), usage: usageLine(c), summary: c.summary })) };
}
