import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '@/server/operators/password';
import { clientFor, expectStatus } from '../support/partner-api';
import { NYC, startTestService, type TestService } from '../support/service';

// The admin CLI as operators run it: a child process per command, over the database of a running
// service (so issued keys can be tried against it), and once over the embedded default.

// A test here runs up to a dozen commands, each a tsx process starting in 1-3 s; beside another test file
// on CI's two cores one took 30 s (the suite's default limit) for nine of them.
vi.setConfig({ testTimeout: 90_000 });

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

let svc: TestService;
let sql: postgres.Sql;

beforeAll(async () => {
  // TTL 0: the service sees each CLI change on the next request (propagation is tested elsewhere).
  svc = await startTestService({ WORKERS: 'off', CREDENTIAL_CACHE_TTL_MS: '0' });
  sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
});
afterAll(() => sql?.end());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is exactly one line of JSON. */
  json?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** `stdin`: text piped to the command; without it stdin is /dev/null (as under cron), never a terminal. */
function run(args: string[], env: Record<string, string> = { DATABASE_URL: svc.databaseUrl }, stdin?: string): Promise<Run> {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'LOG_LEVEL']) delete base[name];
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['server/boot/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...base, ...env },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stdout.split('\n').filter(Boolean);
      let json;
      try {
        json = lines.length === 1 ? JSON.parse(lines[0]!) : undefined;
      } catch {
        // not JSON: left undefined
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Runs with --json and expects success: exactly one JSON object on stdout, exit 0. */
async function ok(args: string[], env?: Record<string, string>, stdin?: string) {
  const r = await run([...args, '--json'], env, stdin);
  expect(r.code, r.stderr).toBe(0);
  expect(r.json, `stdout: ${r.stdout}`).toBeTypeOf('object');
  return r.json!;
}

/** Runs with --json and expects a refusal: exit code, one stderr line, and the JSON error on stdout. */
async function refused(args: string[], exitCode: 1 | 2, code: string, stdin?: string) {
  const r = await run([...args, '--json'], undefined, stdin);
  expect(r.code, `${args.join(' ')}: ${r.stdout}`).toBe(exitCode);
  expect(r.json?.error?.code, args.join(' ')).toBe(code);
  expect(r.json!.error.message).toBeTypeOf('string');
  expect(r.stderr.trim().split('\n')).toEqual([`error: ${r.json!.error.message}`]);
  return r.json!.error as { code: string; message: string; param?: string };
}

async function counts() {
  const [row] = await sql`select
    (select count(*)::int from partners) as partners,
    (select count(*)::int from credentials) as credentials,
    (select count(*)::int from allowlist_entries) as allowlist,
    (select count(*)::int from operators) as operators,
    (select count(*)::int from audit_log) as audit,
    (select count(*)::int from partners where go_live_status <> 'not_requested' or rate_limit_per_second is not null) as changed_partners`;
  return row;
}

/** The partner API as the holder of a key the CLI issued. */
const holder = (apiKey: string, clientId: string) => clientFor({ baseUrl: svc.url, clientId, apiKey });
const quote = (apiKey: string, clientId: string) => holder(apiKey, clientId).POST('/partner/quotes', { body: NYC });

describe('admin CLI', () => {
  let partnerId: string;

  it('creates a partner and issues a sandbox key that authenticates, until it is revoked', async () => {
    const partner = await ok(['partner', 'create', '--name', '  Acme Couriers ']);
    expect(partner).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/), name: 'Acme Couriers' });
    partnerId = partner.id;

    const cred = await ok(['credentials', 'issue', '--partner', partnerId, '--env', 'sandbox']);
    expect(cred).toEqual({
      client_id: expect.stringMatching(/^ci_/),
      api_key: expect.stringMatching(/^sk_sandbox_/),
      environment: 'sandbox',
    });
    expect(expectStatus(201, await quote(cred.api_key, cred.client_id)).livemode).toBe(false);

    const revoked = await ok(['credentials', 'revoke', '--client-id', cred.client_id]);
    expect(revoked).toEqual({ client_id: cred.client_id, revoked_at: expect.any(Number) });
    expect(Math.abs(revoked.revoked_at - Date.now() / 1000)).toBeLessThan(60);
    expect((await quote(cred.api_key, cred.client_id)).response.status).toBe(401);

    const audit = await sql`select actor, action from audit_log where target_id in (${partnerId}, ${cred.client_id}) order by at, id`;
    expect(audit.map((a) => `${a.actor} ${a.action}`)).toEqual([
      'operator:cli partner.create',
      'operator:cli credential.issue',
      'operator:cli credential.revoke',
    ]);
  });

  it('refuses a production key before go-live approval and issues one after', async () => {
    const before = await counts();
    const err = await refused(['credentials', 'issue', '--partner', partnerId, '--env', 'production'], 1, 'go_live_required');
    expect(err.message).toMatch(/go-live/);
    expect(await counts()).toEqual(before);

    // Nothing to approve before the partner asked for its review.
    await refused(['go-live', 'approve', '--partner', partnerId], 1, 'invalid_go_live_transition');
    expect(await ok(['go-live', 'request', '--partner', partnerId])).toEqual({ id: partnerId, go_live_status: 'requested' });
    expect(await ok(['go-live', 'reject', '--partner', partnerId])).toEqual({ id: partnerId, go_live_status: 'rejected' });
    await refused(['go-live', 'reject', '--partner', partnerId], 1, 'invalid_go_live_transition');
    // Approval follows a request: a rejected partner asks again first.
    await refused(['go-live', 'approve', '--partner', partnerId], 1, 'invalid_go_live_transition');
    expect(await ok(['go-live', 'request', '--partner', partnerId])).toEqual({ id: partnerId, go_live_status: 'requested' });
    expect(await ok(['go-live', 'approve', '--partner', partnerId])).toEqual({ id: partnerId, go_live_status: 'approved' });

    const live = await ok(['credentials', 'issue', '--partner', partnerId, '--env', 'production']);
    expect(live).toMatchObject({ api_key: expect.stringMatching(/^sk_live_/), environment: 'production' });
    expect(expectStatus(201, await quote(live.api_key, live.client_id)).livemode).toBe(true);
  });

  it('edits the allowlist (the service applies it) and sets the rate limit', async () => {
    const cred = await ok(['credentials', 'issue', '--partner', partnerId, '--env', 'sandbox']);
    // The test client is on loopback: outside this range, so the key is refused with 403 while it is listed.
    const added = await ok(['allowlist', 'add', '--partner', partnerId, '--cidr', '203.0.113.77/24', '--label', 'approved egress proxy']);
    expect(added).toEqual({ partner_id: partnerId, cidr: '203.0.113.0/24', label: 'approved egress proxy' });
    expect((await quote(cred.api_key, cred.client_id)).response.status).toBe(403);
    expect(await ok(['allowlist', 'remove', '--partner', partnerId, '--cidr', '203.0.113.0/24'])).toEqual({
      partner_id: partnerId,
      cidr: '203.0.113.0/24',
      removed: true,
    });
    expectStatus(201, await quote(cred.api_key, cred.client_id));
    await refused(['allowlist', 'remove', '--partner', partnerId, '--cidr', '203.0.113.0/24'], 1, 'resource_missing');

    expect(await ok(['rate-limit', 'set', '--partner', partnerId, '--per-second', '5'])).toEqual({
      id: partnerId,
      rate_limit_per_second: 5,
      burst: 10,
    });
    expect((await quote(cred.api_key, cred.client_id)).response.headers.get('ratelimit-limit')).toBe('5');
    expect(await ok(['rate-limit', 'set', '--partner', partnerId, '--per-second', 'default'])).toEqual({
      id: partnerId,
      rate_limit_per_second: svc.env.RATE_LIMIT_PER_SECOND,
      burst: svc.env.RATE_LIMIT_BURST,
    });
    const [row] = await sql`select rate_limit_per_second from partners where id = ${partnerId}`;
    expect(row!.rate_limit_per_second).toBeNull();
  });

  it('creates operators with the password piped on stdin; a second one with the same e-mail (any case) is refused', async () => {
    const op = await ok(['operator', 'create', '--email', 'Ops@Example.com', '--role', 'support'], undefined, 'correct horse battery\n');
    expect(op).toEqual({ id: expect.any(String), email: 'ops@example.com', role: 'support' });
    const before = await counts();
    await refused(['operator', 'create', '--email', 'OPS@example.com', '--role', 'admin'], 1, 'operator_exists', 'another long password\n');
    expect(await counts()).toEqual(before);
    const [row] = await sql`select role, password_hash from operators where email = 'ops@example.com'`;
    expect(row!.role).toBe('support');
    expect(await verifyPassword('correct horse battery', row!.password_hash)).toBe(true);
    // A short line on stdin is refused like a short --password, before anything is written.
    const short = await refused(
      ['operator', 'create', '--email', 'short@example.com', '--role', 'admin'],
      2,
      'parameter_invalid',
      'short\n',
    );
    expect(short).toMatchObject({ param: 'password', message: 'Invalid password on stdin: at least 12 characters.' });
    expect(await counts()).toEqual(before);
  });

  it('generates a password when nothing is piped, printed once (text and --json); never in the audit log', async () => {
    const json = await ok(['operator', 'create', '--email', 'generated@example.com', '--role', 'admin']);
    expect(json).toEqual({
      id: expect.any(String),
      email: 'generated@example.com',
      role: 'admin',
      generated_password: expect.stringMatching(/^[\w-]{24}$/),
    });
    const [row] = await sql`select password_hash from operators where id = ${json.id}`;
    expect(await verifyPassword(json.generated_password, row!.password_hash)).toBe(true);

    const text = await run(['operator', 'create', '--email', 'generated-text@example.com', '--role', 'support']);
    expect(text.code, text.stderr).toBe(0);
    const [line1, line2, ...rest] = text.stdout.trimEnd().split('\n');
    expect(line1).toMatch(/^Created support operator generated-text@example\.com \(\w+\)\.$/);
    const password = /^Password: ([\w-]{24}) {2}\(not shown again; store it now\)$/.exec(line2!)?.[1];
    expect(password).toBeDefined();
    expect(rest).toEqual([]);
    const [textRow] = await sql`select password_hash from operators where email = 'generated-text@example.com'`;
    expect(await verifyPassword(password!, textRow!.password_hash)).toBe(true);

    const audit = await sql`select actor, before, after from audit_log where action = 'operator.create' and target_id = ${json.id}`;
    expect(audit).toEqual([{ actor: 'operator:cli', before: null, after: { email: 'generated@example.com', role: 'admin' } }]);
    const everything = JSON.stringify(await sql`select * from audit_log`);
    expect(everything).not.toContain(json.generated_password);
    expect(everything).not.toContain(password);
  });

  it('still accepts the deprecated --password flag, with a warning on stderr', async () => {
    const r = await run([
      'operator',
      'create',
      '--email',
      'flag@example.com',
      '--password',
      'from the command line',
      '--role',
      'support',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({ id: expect.any(String), email: 'flag@example.com', role: 'support' });
    expect(r.stderr).toMatch(/--password is deprecated/);
  });

  it("sets an operator's role (audited as the CLI), and refuses to leave no admin", async () => {
    // The admins so far: generated@example.com only.
    const [only] = await sql`select id from operators where role = 'admin'`;
    const [ops] = await sql`select id from operators where email = 'ops@example.com'`;
    const before = await counts();
    const err = await refused(['operator', 'set-role', '--id', only!.id, '--role', 'support'], 1, 'last_admin');
    expect(err.message).toMatch(/no active admin/);
    expect(await counts()).toEqual(before);

    expect(await ok(['operator', 'set-role', '--id', ops!.id, '--role', 'admin'])).toEqual({
      id: ops!.id,
      email: 'ops@example.com',
      role: 'admin',
      changed: true,
    });
    expect(await ok(['operator', 'set-role', '--id', only!.id, '--role', 'support'])).toMatchObject({ role: 'support', changed: true });
    const again = await run(['operator', 'set-role', '--id', only!.id, '--role', 'support']);
    expect(again.stdout.trim()).toBe(`Operator generated@example.com (${only!.id}) is already support.`);
    const audit = await sql`select actor, before, after from audit_log where action = 'operator.role.change' and target_id = ${ops!.id}`;
    expect(audit).toEqual([{ actor: 'operator:cli', before: { role: 'support' }, after: { role: 'admin' } }]);
    await refused(['operator', 'set-role', '--id', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--role', 'admin'], 1, 'resource_missing');
  });

  it('disables and enables an operator (sessions end, sign-in refused, audited as the CLI); sets a password from stdin', async () => {
    const [ops] = await sql`select id from operators where email = 'ops@example.com'`;
    const id = ops!.id as string;
    // ops@example.com is the only admin after the test above: another, so it may be disabled.
    const [second] = await sql`select id from operators where email = 'generated@example.com'`;
    await ok(['operator', 'set-role', '--id', second!.id, '--role', 'admin']);
    const signIn = (password: string) =>
      fetch(`${svc.url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', password }),
      });
    const session = (await signIn('correct horse battery')).headers.get('set-cookie')!.split(';')[0]!;
    const me = () =>
      fetch(`${svc.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: session },
        body: JSON.stringify({ query: '{ me { operator { id } } }' }),
      }).then((r) => r.status);
    expect(await me()).toBe(200);

    const disabled = await ok(['operator', 'disable', '--id', id]);
    expect(disabled).toMatchObject({ id, email: 'ops@example.com', changed: true, sessions_ended: 1 });
    expect(disabled.disabled_at).toEqual(expect.any(String));
    expect(await me()).toBe(401);
    expect((await signIn('correct horse battery')).status).toBe(401);
    expect(await ok(['operator', 'disable', '--id', id])).toMatchObject({ changed: false, sessions_ended: 0 });
    expect((await run(['operator', 'enable', '--id', id])).stdout.trim()).toBe(`Operator ops@example.com (${id}) may sign in again.`);
    expect((await signIn('correct horse battery')).status).toBe(200);
    const audit = await sql`select actor, action from audit_log where target_id = ${id} and action like 'operator.%able' order by at, id`;
    expect(audit).toEqual([
      { actor: 'operator:cli', action: 'operator.disable' },
      { actor: 'operator:cli', action: 'operator.enable' },
    ]);
    // The last active admin cannot be disabled.
    const others = await sql`select id from operators where role = 'admin' and disabled_at is null and id <> ${id}`;
    for (const { id: other } of others) await ok(['operator', 'disable', '--id', other]);
    await refused(['operator', 'disable', '--id', id], 1, 'last_admin');
    for (const { id: other } of others) await ok(['operator', 'enable', '--id', other]);

    // A new password from stdin: every session ends, the old password stops working, nothing is printed of it.
    const set = await run(['operator', 'set-password', '--id', id, '--json'], undefined, 'a new password from stdin\n');
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toEqual({ id, email: 'ops@example.com', sessions_ended: 1 });
    expect(set.stdout + set.stderr).not.toContain('a new password from stdin');
    expect((await signIn('correct horse battery')).status).toBe(401);
    expect((await signIn('a new password from stdin')).status).toBe(200);
    await refused(['operator', 'set-password', '--id', id], 2, 'parameter_invalid', 'short\n');
    const generated = await ok(['operator', 'set-password', '--id', id]);
    expect((await signIn(generated.generated_password)).status).toBe(200);
    expect(await sql`select actor, after from audit_log where target_id = ${id} and action = 'operator.password.set'`).toEqual([
      { actor: 'operator:cli', after: { sessions_ended: 1 } },
      { actor: 'operator:cli', after: { sessions_ended: 1 } },
    ]);
    // Some 16 commands, each a tsx child process: seconds each on a loaded machine.
  }, 120_000);

  it('advances an order along the state machine and refuses an illegal move', async () => {
    const cred = await ok(['credentials', 'issue', '--partner', partnerId, '--env', 'sandbox']);
    const q = expectStatus(201, await quote(cred.api_key, cred.client_id));
    const order = expectStatus(201, await holder(cred.api_key, cred.client_id).POST('/partner/orders', { body: { quote_id: q.id } }));

    const moved = await ok(['order', 'advance', '--order', order.id, '--status', 'courier_assigned']);
    expect(moved).toMatchObject({ object: 'order', id: order.id, status: 'courier_assigned' });
    const events = await sql`select type from events where object_id = ${order.id} order by id`;
    expect(events.map((e) => e.type)).toContain('order.courier_assigned');
    await refused(['order', 'advance', '--order', order.id, '--status', 'delivered'], 1, 'invalid_state_transition');
  });

  it('refuses bad command lines (exit 2) and unknown targets (exit 1) without writing anything', async () => {
    const before = await counts();
    // Every usage error is covered in-process by args.test.ts; here, one of each kind end to end.
    const cases: Array<[string[], 1 | 2, string, string?]> = [
      [['partner', 'create'], 2, 'missing_flag', 'name'],
      [['partner', 'create', '--name', 'x', '--colour', 'red'], 2, 'unknown_flag', 'colour'],
      [['partner', 'delete', '--name', 'x'], 2, 'unknown_command'],
      [['allowlist', 'add', '--partner', partnerId, '--cidr', '10.0.0.0/33'], 2, 'parameter_invalid', 'cidr'],
      [['operator', 'create', '--email', 'new@example.com', '--password', 'short', '--role', 'admin'], 2, 'parameter_invalid', 'password'],
      [['operator', 'set-role', '--id', 'x', '--role', 'owner'], 2, 'parameter_invalid', 'role'],
      [['credentials', 'issue', '--partner', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--env', 'sandbox'], 1, 'resource_missing'],
      [['allowlist', 'add', '--partner', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--cidr', '10.0.0.0/8'], 1, 'resource_missing'],
      [['credentials', 'revoke', '--client-id', 'ci_01ARZ3NDEKTSV4RRFFQ69G5FAV'], 1, 'resource_missing'],
    ];
    const errors = await Promise.all(cases.map(([args, exitCode, code]) => refused(args, exitCode, code)));
    errors.forEach((error, i) => {
      const param = cases[i]![3];
      if (param) expect(error.param, cases[i]![0].join(' ')).toBe(param);
    });
    expect(await counts()).toEqual(before);

    // Without --json: the message on stderr, nothing on stdout.
    const plain = await run(['credentials', 'issue', '--partner', partnerId, '--env', 'staging']);
    expect(plain).toMatchObject({ code: 2, stdout: '' });
    expect(plain.stderr).toMatch(/^error: Invalid --env: 'staging'/);
  });

  it('prints usage listing every command for help, --help and no arguments (exit 0)', async () => {
    const [help, dashHelp, none, json, one] = await Promise.all([
      run(['help']),
      run(['--help']),
      run([]),
      run(['help', '--json']),
      run(['allowlist', 'add', '--help']),
    ]);
    for (const r of [help, dashHelp, none]) {
      expect(r.code).toBe(0);
      for (const c of [
        'partner create',
        'credentials issue',
        'credentials revoke',
        'allowlist add',
        'allowlist remove',
        'go-live approve',
        'rate-limit set',
        'operator create',
        'operator set-role',
        'operator disable',
        'operator enable',
        'operator set-password',
      ]) {
        expect(r.stdout).toContain(c);
      }
    }
    expect(json.code).toBe(0);
    expect(json.json!.commands.map((c: { command: string }) => c.command)).toContain('go-live reject');
    expect(one.stdout).toContain('allowlist add --partner <id> --cidr <cidr> [--label <text>]');
    expect(one.stdout).not.toContain('operator create');
    const create = await run(['operator', 'create', '--help']);
    expect(create.stdout).toContain('operator create --email <email> --role <admin|support> [--password <password>]');
    expect(create.stdout).toMatch(/first line on stdin/);
    expect(create.stdout).toMatch(/--password is deprecated/);
  });
});

describe('admin CLI over the embedded default (no DATABASE_URL)', () => {
  let dir: string;
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it('starts its own Postgres under DATA_DIR, stops it after, and the next run sees the data', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pdp-cli-'));
    // Postgres runs as the postgres OS user when we are root: it must be able to enter the directory.
    await chmod(dir, 0o755);
    const partner = await ok(['partner', 'create', '--name', 'Embedded Co'], { DATA_DIR: dir });
    expect(existsSync(path.join(dir, 'pg', 'postmaster.pid'))).toBe(false);
    const cred = await ok(['credentials', 'issue', '--partner', partner.id, '--env', 'sandbox'], { DATA_DIR: dir });
    expect(cred.client_id).toMatch(/^ci_/);
    expect(existsSync(path.join(dir, 'pg', 'postmaster.pid'))).toBe(false);
  });
});
