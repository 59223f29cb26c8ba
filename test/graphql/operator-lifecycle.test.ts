import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { changeOperatorRole } from '@/server/operators/change-role';
import { disableOperator } from '@/server/operators/disable';
import { captureLogs } from '../support/logs';
import { cookieOf, createTestOperator, gql, gqlData, signIn, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

// Issue 21 item 10: operators can be disabled (and enabled again), and change their own password.

let svc: TestService;
let sql: postgres.Sql;
let admin: TestOperator;
// Debug and up: whatever the service logs, a password must not be in it.
const logs = captureLogs('debug');

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', LOG_LEVEL: 'debug' }, { log: logs.log });
  sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
  admin = await createTestOperator(svc, 'admin');
});
afterAll(() => sql?.end());

const DISABLE = `mutation($id: ID!) { disableOperator(id: $id) { id email role disabledAt } }`;
const ENABLE = `mutation($id: ID!) { enableOperator(id: $id) { id email role disabledAt } }`;
const CHANGE_PASSWORD = `mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) { sessionsEnded } }`;
const ME = '{ me { operator { id } } }';

const auditOf = (targetId: string, action: string) =>
  sql`select actor, before, after from audit_log where target_id = ${targetId} and action = ${action} order by at, id`;

/** A second session of `op`, as from another browser. */
async function anotherSession(op: TestOperator): Promise<TestOperator> {
  const res = await signIn(svc.url, op.email, op.password);
  expect(res.status).toBe(200);
  return { ...op, cookie: cookieOf(res) };
}

describe('disableOperator', () => {
  it('ends every session at once, refuses sign-in with the same 401 as a wrong password, keeps the audit log', async () => {
    const leaver = await createTestOperator(svc, 'support');
    const second = await anotherSession(leaver);
    await gqlData(leaver, ME);
    const data = await gqlData(admin, DISABLE, { id: leaver.id });
    expect(data.disableOperator).toMatchObject({ id: leaver.id, email: leaver.email, role: 'support' });
    expect(Date.parse(data.disableOperator.disabledAt)).toBeGreaterThan(Date.now() - 60_000);

    // Both sessions are refused on their very next request.
    for (const session of [leaver, second]) expect((await gql(session, ME)).status).toBe(401);
    expect(await sql`select count(*)::int as n from operator_sessions where operator_id = ${leaver.id} and revoked_at is null`).toEqual([
      { n: 0 },
    ]);
    // The right password answers exactly as a wrong one does.
    const right = await signIn(svc.url, leaver.email, leaver.password);
    const wrong = await signIn(svc.url, leaver.email, 'not the password at all');
    expect(right.status).toBe(401);
    expect({ ...(await right.json()).error, request_id: undefined }).toEqual({ ...(await wrong.json()).error, request_id: undefined });

    const [audit] = await auditOf(leaver.id, 'operator.disable');
    expect(audit).toMatchObject({ actor: `operator:${admin.id}`, before: { disabled_at: null }, after: { sessions_ended: 2 } });
    // The operator and their own audit entries stay.
    expect(await sql`select count(*)::int as n from audit_log where actor = ${`operator:${leaver.id}`}`).not.toEqual([{ n: 0 }]);
    const list = await gqlData(admin, '{ operators(first: 100) { nodes { id disabledAt } } }');
    expect(list.operators.nodes.find((o: { id: string }) => o.id === leaver.id).disabledAt).not.toBeNull();
  });

  it('a session that was live is refused even when only the operator row says disabled', async () => {
    const op = await createTestOperator(svc, 'support');
    // As if the sessions sweep had missed one: the row alone must be enough.
    await sql`update operators set disabled_at = now() where id = ${op.id}`;
    expect((await gql(op, ME)).status).toBe(401);
    await sql`update operators set disabled_at = null where id = ${op.id}`;
    expect((await gql(op, ME)).status).toBe(200);
  });

  it('enables again: sign-in works with the old password, old sessions stay ended; audited; repeats change nothing', async () => {
    const op = await createTestOperator(svc, 'support');
    await gqlData(admin, DISABLE, { id: op.id });
    expect((await gqlData(admin, DISABLE, { id: op.id })).disableOperator.disabledAt).not.toBeNull();
    expect(await auditOf(op.id, 'operator.disable')).toHaveLength(1);
    const enabled = await gqlData(admin, ENABLE, { id: op.id });
    expect(enabled.enableOperator.disabledAt).toBeNull();
    await gqlData(admin, ENABLE, { id: op.id });
    expect(await auditOf(op.id, 'operator.enable')).toEqual([
      { actor: `operator:${admin.id}`, before: { disabled_at: expect.any(String) }, after: { disabled_at: null } },
    ]);
    expect((await gql(op, ME)).status).toBe(401);
    expect((await signIn(svc.url, op.email, op.password)).status).toBe(200);
  });

  it('refuses to disable or demote the last active admin; a disabled admin does not count', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const other = await createTestOperator(svc, 'admin');
    // Every other admin disabled, so `admin` is the last active one.
    for (const { id } of await sql`select id from operators where role = 'admin' and id <> ${admin.id} and disabled_at is null`) {
      await disableOperator({ ctx, input: { id } });
    }
    const before = await sql`select count(*)::int as n from audit_log`;
    const refused = await gql(admin, DISABLE, { id: admin.id });
    expect(refused.errors?.[0]?.extensions?.code).toBe('last_admin');
    const demote = await gql(admin, 'mutation($id: ID!) { changeOperatorRole(id: $id, role: support) { id } }', { id: admin.id });
    expect(demote.errors?.[0]?.extensions?.code).toBe('last_admin');
    expect(await sql`select count(*)::int as n from audit_log`).toEqual(before);
    expect(await sql`select role, disabled_at from operators where id = ${admin.id}`).toEqual([{ role: 'admin', disabled_at: null }]);
    // With another active admin, an admin may be disabled (even oneself).
    await gqlData(admin, ENABLE, { id: other.id });
    const self = await anotherSession(admin);
    expect((await gqlData(self, DISABLE, { id: admin.id })).disableOperator.id).toBe(admin.id);
    expect((await gql(self, ME)).status).toBe(401);
    await sql`update operators set disabled_at = null where id = ${admin.id}`;
    admin = { ...admin, ...(await anotherSession(admin)) };
  });

  it('two admins disabling each other at once: one wins, one is refused, one active admin remains', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const a = await createTestOperator(svc, 'admin');
    const b = await createTestOperator(svc, 'admin');
    for (const { id } of await sql`select id from operators where role = 'admin' and id not in (${a.id}, ${b.id})`) {
      await changeOperatorRole({ ctx, input: { id, role: 'support' } });
    }
    const results = await Promise.allSettled([a, b].map((op) => disableOperator({ ctx, input: { id: op.id } })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'last_admin' } });
    expect(await sql`select count(*)::int as n from operators where role = 'admin' and disabled_at is null`).toEqual([{ n: 1 }]);
    await sql`update operators set disabled_at = null, role = 'admin' where id = ${admin.id}`;
  });
});

describe('changePassword', () => {
  it('needs the current password; ends the other sessions, keeps this one; audited without the password; never logged', async () => {
    const op = await createTestOperator(svc, 'support');
    const other = await anotherSession(op);
    const wrong = await gql(op, CHANGE_PASSWORD, { c: 'not my password', n: 'a brand new password' });
    expect(wrong.errors?.[0]?.extensions).toMatchObject({ code: 'current_password_wrong', param: 'currentPassword' });
    const short = await gql(op, CHANGE_PASSWORD, { c: op.password, n: 'short' });
    expect(short.errors?.[0]?.extensions).toMatchObject({ param: 'newPassword' });
    const same = await gql(op, CHANGE_PASSWORD, { c: op.password, n: op.password });
    expect(same.errors?.[0]?.extensions).toMatchObject({ param: 'newPassword' });

    const next = 'correct horse battery staple';
    expect((await gqlData(op, CHANGE_PASSWORD, { c: op.password, n: next })).changePassword).toEqual({ sessionsEnded: 1 });
    expect((await gql(op, ME)).status).toBe(200);
    expect((await gql(other, ME)).status).toBe(401);
    expect((await signIn(svc.url, op.email, op.password)).status).toBe(401);
    expect((await signIn(svc.url, op.email, next)).status).toBe(200);
    expect(await auditOf(op.id, 'operator.password.change')).toEqual([
      { actor: `operator:${op.id}`, before: null, after: { sessions_ended: 1 } },
    ]);
    const everything = JSON.stringify([await sql`select * from audit_log`, logs.lines]);
    expect(everything).not.toContain(next);
    expect(everything).not.toContain(op.password);
    expect(logs.lines.length).toBeGreaterThan(0);
  });

  it('counts wrong current passwords as failed sign-ins: a stolen session gets 5 guesses', async () => {
    const op = await createTestOperator(svc, 'support');
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) {
      codes.push((await gql(op, CHANGE_PASSWORD, { c: `guess number ${i}`, n: 'a brand new password' })).errors?.[0]?.extensions?.code);
    }
    expect(codes).toEqual([...Array(5).fill('current_password_wrong'), 'rate_limited', 'rate_limited']);
    expect((await gql(op, CHANGE_PASSWORD, { c: op.password, n: 'a brand new password' })).errors?.[0]?.extensions?.code).toBe(
      'rate_limited',
    );
  });
});
