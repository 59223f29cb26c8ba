import { parseArgs, type ParseArgsConfig } from 'node:util';
import { COMMANDS, usageLine, type Command, type Flags } from './commands';
import { UsageError } from './usage-error';

export type CommandLine = { kind: 'help'; command?: Command } | { kind: 'run'; command: Command; flags: Flags };

type Options = NonNullable<ParseArgsConfig['options']>;
const COMMON: Options = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

/** Known even when the rest of the line is wrong, so that a refusal is printed as JSON too. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * `<words...> --flag value ... [--json]`: finds the command by its leading words, then parses the
 * line again, strictly, with that command's flags. Every flag takes a value except --json and --help.
 */
export function parseCommandLine(argv: string[], commands: readonly Command[] = COMMANDS): CommandLine {
  const { words, help } = looseParse(argv, commands);
  const asksHelp = help || words[0] === 'help';
  const named = words[0] === 'help' ? words.slice(1) : words;
  if (named.length === 0) return { kind: 'help' };
  const command = commands.find((c) => c.words.every((w, i) => named[i] === w));
  if (asksHelp) {
    if (command && named.length === command.words.length) return { kind: 'help', command };
    if (help) return { kind: 'help' };
  }
  if (!command) throw unknownCommand(named, commands);

  const options: Options = { ...COMMON };
  for (const name of Object.keys(command.flags)) options[name] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true, tokens: true });
  } catch (e) {
    throw fromParseArgsError(e, command);
  }
  const name = command.words.join(' ');
  const extra = parsed.positionals.slice(command.words.length);
  if (extra.length > 0) {
    throw new UsageError('unexpected_argument', `Unexpected argument '${extra[0]}' for '${name}'. Usage: ${usageLine(command)}`);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.name in COMMON) continue;
    if (seen.has(token.name)) throw new UsageError('duplicate_flag', `--${token.name} is given twice for '${name}'.`, token.name);
    seen.add(token.name);
  }
  const flags: Flags = {};
  for (const [key, v] of Object.entries(parsed.values)) if (typeof v === 'string') flags[key] = v;
  const missing = Object.entries(command.flags)
    .filter(([key, spec]) => !spec.optional && flags[key] === undefined)
    .map(([key]) => key);
  if (missing.length > 0) {
    throw new UsageError(
      'missing_flag',
      `Missing ${missing.map((m) => `--${m}`).join(', ')} for '${name}'. Usage: ${usageLine(command)}`,
      missing[0],
    );
  }
  return { kind: 'run', command, flags };
}

/** First pass, with every command's flags, only to find the command words wherever the flags sit. */
function looseParse(argv: string[], commands: readonly Command[]): { words: string[]; help: boolean } {
  const options: Options = { ...COMMON };
  for (const c of commands) for (const name of Object.keys(c.flags)) options[name] = { type: 'string' };
  const { values, positionals } = parseArgs({ args: argv, options, strict: false, allowPositionals: true });
  return { words: positionals, help: values.help === true };
}

function unknownCommand(named: string[], commands: readonly Command[]): UsageError {
  const group = commands.filter((c) => c.words[0] === named[0]);
  const list = `Commands: ${commands.map((c) => c.words.join(' ')).join(', ')}.`;
  if (group.length > 0 && named.length === 1) {
    return new UsageError('unknown_command', `'${named[0]}' needs one of: ${group.map((c) => c.words.slice(1).join(' ')).join(', ')}.`);
  }
  const shown = (group.length > 0 ? named.slice(0, 2) : named.slice(0, 1)).join(' ');
  return new UsageError('unknown_command', `Unknown command '${shown}'. ${list}`);
}

function fromParseArgsError(e: unknown, command: Command): UsageError {
  const name = command.words.join(' ');
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  const flag = /'(-[^' ]+)/.exec(message)?.[1] ?? '';
  const param = flag.replace(/^-+/, '') || undefined;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return new UsageError('unknown_flag', `Unknown flag ${flag} for '${name}'. Usage: ${usageLine(command)}`, param);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (param && param in COMMON) return new UsageError('parameter_invalid', `${flag} takes no value.`, param);
    // Also "ambiguous": `--name --json` would take "--json" as the name.
    return new UsageError('missing_value', `${flag} needs a value (write one that starts with '-' as ${flag}=-value).`, param);
  }
  return new UsageError('invalid_command_line', message.split('\n')[0] ?? message);
}
