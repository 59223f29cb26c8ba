import { describe, expect, it } from 'vitest';
import { parseCommandLine, wantsJson } from '@/server/cli/args';
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

  it('knows --json is wanted even when the line is wrong, but not after --', () => {
    expect(wantsJson(['partner', 'delete', '--json'])).toBe(true);
    expect(wantsJson(['partner', 'create', '--name', 'x'])).toBe(false);
    expect(wantsJson(['partner', 'create', '--', '--json'])).toBe(false);
  });
});
