import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { parseCommandLine, wantsJson } from '@/server/cli/args';
import { COMMANDS } from '@/server/cli/commands';
import { readStdinLine } from '@/server/cli/stdin';
import { UsageError } from '@/server/cli/usage-error';

// The admin CLI's command-line checks, in-process: everything here is refused (or converted)
// before the database is opened. admin.test.ts runs a few of the same end to end.

function parse(argv: string[]) {
  const line = parseCommandLine(argv);
  if (line.kind === 'help') return { help: line.command?.words.join(' ') ?? 'all' };
  return { command: line.command.words.join(' '), input: line.command.input(line.flags) };
}

function refusal(argv: string[]): { code: string; param?: string; message: string } {
  try {
    parse(argv);
  } catch (e) {
    if (e instanceof UsageError) return { code: e.code, param: e.param, message: e.message };
    throw e;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

const P = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('admin CLI command line', () => {
  it.each([
    [[], 'all'],
    [['help'], 'all'],
    [['--help'], 'all'],
    [['-h', '--json'], 'all'],
    [['partner', '--help'], 'all'],
    [['help', 'partner', 'create'], 'partner create'],
    [['partner', 'create', '--help'], 'partner create'],
    [['go-live', 'approve', '--partner', P, '-h'], 'go-live approve'],
  ])('%j is help for %s', (argv, which) => {
    expect(parse(argv)).toEqual({ help: which });
  });

  it('converts flags into the verb input, wherever --json sits', () => {
    expect(parse(['--json', 'partner', 'create', '--name', ' Acme '])).toEqual({ command: 'partner create', input: { name: 'Acme' } });
    expect(parse(['credentials', 'issue', '--env=production', '--partner', P])).toEqual({
      command: 'credentials issue',
      input: { partnerId: P, environment: 'production' },
    });
    expect(parse(['allowlist', 'add', '--partner', P, '--cidr', '2001:db8::1/32']).input).toEqual({
      partnerId: P,
      cidr: '2001:db8::/32',
      label: undefined,
    });
    expect(parse(['allowlist', 'add', '--partner', P, '--cidr', '198.51.100.7', '--label', 'office']).input).toMatchObject({
      cidr: '198.51.100.7/32',
      label: 'office',
    });
    expect(parse(['rate-limit', 'set', '--partner', P, '--per-second', 'default']).input).toEqual({ partnerId: P, perSecond: null });
    expect(parse(['rate-limit', 'set', '--partner', P, '--per-second', '100000']).input).toEqual({ partnerId: P, perSecond: 100_000 });
    expect(parse(['operator', 'create', '--email', 'Ops@Example.COM', '--password', 'twelve chars', '--role', 'admin']).input).toEqual({
      email: 'ops@example.com',
      password: 'twelve chars',
      role: 'admin',
    });
    // Without --password, the password comes from stdin or is generated (admin.test.ts).
    expect(parse(['operator', 'create', '--email', 'a@b.io', '--role', 'support']).input).toEqual({
      email: 'a@b.io',
      password: undefined,
      role: 'support',
    });
    expect(parse(['operator', 'set-role', '--id', P, '--role', 'admin'])).toEqual({
      command: 'operator set-role',
      input: { id: P, role: 'admin' },
    });
    expect(parse(['go-live', 'reject', '--partner', P]).input).toEqual({ partnerId: P, decision: 'reject' });
    expect(parse(['order', 'advance', '--order', P, '--status', 'cancelled', '--reason', 'customer_request']).input).toEqual({
      orderId: P,
      status: 'cancelled',
      reason: 'customer_request',
    });
  });

  it.each([
    [['partner'], 'unknown_command', undefined],
    [['partner', 'delete'], 'unknown_command', undefined],
    [['launch', 'rockets'], 'unknown_command', undefined],
    [['help', 'nope'], 'unknown_command', undefined],
    [['partner', 'create'], 'missing_flag', 'name'],
    [['credentials', 'issue'], 'missing_flag', 'partner'],
    [['partner', 'create', '--name'], 'missing_value', 'name'],
    [['partner', 'create', '--name', '--json'], 'missing_value', 'name'],
    [['partner', 'create', '--json=yes', '--name', 'x'], 'parameter_invalid', 'json'],
    [['partner', 'create', '--name', 'x', '--colour', 'red'], 'unknown_flag', 'colour'],
    [['partner', 'create', '--name', 'x', '-x'], 'unknown_flag', 'x'],
    [['credentials', 'issue', '--partner', P, '--env', 'sandbox', '--cidr', '10.0.0.0/8'], 'unknown_flag', 'cidr'],
    [['partner', 'create', '--name', 'a', '--name', 'b'], 'duplicate_flag', 'name'],
    [['partner', 'create', '--name', 'x', 'extra'], 'unexpected_argument', undefined],
    [['partner', 'create', '--name', '   '], 'parameter_invalid', 'name'],
    [['partner', 'create', '--name', 'x'.repeat(201)], 'parameter_invalid', 'name'],
    [['credentials', 'issue', '--partner', P, '--env', 'staging'], 'parameter_invalid', 'env'],
    [['credentials', 'issue', '--partner', 'no such; id', '--env', 'sandbox'], 'parameter_invalid', 'partner'],
    [['credentials', 'revoke', '--client-id', ''], 'parameter_invalid', 'client-id'],
    [['allowlist', 'add', '--partner', P, '--cidr', '10.0.0.0/33'], 'parameter_invalid', 'cidr'],
    [['allowlist', 'add', '--partner', P, '--cidr', '127.1'], 'parameter_invalid', 'cidr'],
    [['allowlist', 'add', '--partner', P, '--cidr', 'example.com'], 'parameter_invalid', 'cidr'],
    [['allowlist', 'add', '--partner', P, '--cidr', '10.0.0.0/8', '--label', ''], 'parameter_invalid', 'label'],
    [['allowlist', 'remove', '--partner', P, '--cidr', '::g/64'], 'parameter_invalid', 'cidr'],
    [['rate-limit', 'set', '--partner', P, '--per-second', '0'], 'parameter_invalid', 'per-second'],
    [['rate-limit', 'set', '--partner', P, '--per-second', '100001'], 'parameter_invalid', 'per-second'],
    [['rate-limit', 'set', '--partner', P, '--per-second', '1.5'], 'parameter_invalid', 'per-second'],
    [['rate-limit', 'set', '--partner', P, '--per-second', '1e3'], 'parameter_invalid', 'per-second'],
    [['rate-limit', 'set', '--partner', P, '--per-second', '-5'], 'missing_value', 'per-second'],
    [['operator', 'create', '--email', 'nope', '--password', 'long enough pw', '--role', 'admin'], 'parameter_invalid', 'email'],
    [['operator', 'create', '--email', 'a@b.io', '--password', 'short', '--role', 'admin'], 'parameter_invalid', 'password'],
    [['operator', 'create', '--email', 'a@b.io', '--password', 'long enough pw', '--role', 'root'], 'parameter_invalid', 'role'],
    [['operator', 'create', '--email', 'a@b.io'], 'missing_flag', 'role'],
    [['operator', 'set-role', '--id', P], 'missing_flag', 'role'],
    [['operator', 'set-role', '--id', P, '--role', 'owner'], 'parameter_invalid', 'role'],
    [['operator', 'set-role', '--id', 'a b', '--role', 'admin'], 'parameter_invalid', 'id'],
    [['order', 'advance', '--order', P, '--status', 'teleported'], 'parameter_invalid', 'status'],
    [['order', 'advance', '--order', P, '--status', 'delivered', '--reason', 'x'], 'parameter_invalid', 'reason'],
  ])('%j is refused: %s (%s)', (argv, code, param) => {
    const e = refusal(argv);
    expect(e).toMatchObject({ code, param });
    expect(e.message).not.toContain('\n');
  });

  it('names the command and its usage in flag errors', () => {
    expect(refusal(['allowlist', 'remove', '--partner', P]).message).toBe(
      "Missing --cidr for 'allowlist remove'. Usage: allowlist remove --partner <id> --cidr <cidr>",
    );
    expect(refusal(['go-live', 'launch', '--partner', P]).message).toMatch(
      /^Unknown command 'go-live launch'\. Commands: partner create, /,
    );
  });

  it('takes the operator password from the first line of stdin, checked like the flag; --password still works, with a warning', async () => {
    const create = COMMANDS.find((c) => c.words.join(' ') === 'operator create')!;
    const io = (line: string | undefined) => {
      const warnings: string[] = [];
      return { warnings, io: { stdinLine: async () => line, warn: (m: string) => void warnings.push(m) } };
    };
    const base = { email: 'a@b.io', password: undefined, role: 'admin' };
    expect(await create.fromStdin!(base, io('piped password 1').io)).toEqual({ ...base, password: 'piped password 1' });
    expect(await create.fromStdin!(base, io(undefined).io)).toEqual(base);
    await expect(create.fromStdin!(base, io('short').io)).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'password',
      message: 'Invalid password on stdin: at least 12 characters.',
    });
    const flagged = io('ignored because the flag wins');
    expect(await create.fromStdin!({ ...base, password: 'from the flag' }, flagged.io)).toEqual({ ...base, password: 'from the flag' });
    expect(flagged.warnings).toEqual([expect.stringMatching(/--password is deprecated/)]);
  });

  it('reads one line of stdin: without its line ending, undefined when nothing was piped or stdin is a terminal', async () => {
    expect(await readStdinLine(Readable.from(['correct horse', ' battery\r\nsecond line\n']))).toBe('correct horse battery');
    expect(await readStdinLine(Readable.from(['no newline at the end']))).toBe('no newline at the end');
    expect(await readStdinLine(Readable.from(['\n']))).toBe('');
    expect(await readStdinLine(Readable.from([]))).toBeUndefined();
    expect(await readStdinLine(Object.assign(Readable.from(['typed']), { isTTY: true }))).toBeUndefined();
  });

  it('knows --json is wanted even when the line is wrong, but not after --', () => {
    expect(wantsJson(['partner', 'delete', '--json'])).toBe(true);
    expect(wantsJson(['partner', 'create', '--name', 'x'])).toBe(false);
    expect(wantsJson(['partner', 'create', '--', '--json'])).toBe(false);
  });
});
