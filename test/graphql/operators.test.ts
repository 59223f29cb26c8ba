import { sql as dsql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { withTransaction } from '@/server/context';
import { changeOperatorRole } from '@/server/operators/change-role';
import { createOperator } from '@/server/operators/create';
import { createTestOperator, gql, gqlData, signIn, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let sql: postgres.Sql;
let admin: TestOperator;
let support: TestOperator;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
});
afterAll(() => sql?.end());

const CREATE = `mutation($email: String!, $role: Role!, $password: String) {
  createOperator(email: $email, role: $role, password: $password) { operator { id email role createdAt } generatedPassword }
}`;
const SET_ROLE = `mutation($id: ID!, $role: Role!) { changeOperatorRole(id: $id, role: $role) { id email role } }`;

const auditOf = (targetId: string) =>
  sql`select actor, action, before, after from audit_log where target_id = ${targetId} and target_type = 'operator' order by at, id`;

describe('createOperator', () => {
  it('creates an operator with the given password: audited, the password works, nothing generated', async () => {
    const data = await gqlData(admin, CREATE, { email: 'Given@Example.com', role: 'support', password: 'a long enough password' });
    const { operator, generatedPassword } = data.createOperator;
    expect(operator).toMatchObject({ email: 'given@example.com', role: 'support' });
    expect(Date.parse(operator.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(generatedPassword).toBeNull();
    expect((await signIn(svc.url, 'given@example.com', 'a long enough password')).status).toBe(200);
    expect(await auditOf(operator.id)).toEqual([
      { actor: `operator:${admin.id}`, action: 'operator.create', before: null, after: { email: 'given@example.com', role: 'support' } },
    ]);
  });

  it('without a password generates one, returns it once, and stores only its hash', async () => {
    const data = await gqlData(admin, CREATE, { email: 'generated@example.com', role: 'admin' });
    const { operator, generatedPassword } = data.createOperator;
    expect(generatedPassword).toMatch(/^[\w-]{24}$/);
    expect((await signIn(svc.url, 'generated@example.com', generatedPassword)).status).toBe(200);
    const [row] = await sql`select password_hash from operators where id = ${operator.id}`;
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    expect(row!.password_hash).not.toContain(generatedPassword);
    // Never again: no field of the listing or the audit log carries it.
    const list = await gql(admin, '{ operators(first: 100) { nodes { id email role createdAt } } }');
    const audit = await gql(admin, '{ auditLog(first: 100) { nodes { actor actorEmail action targetId before after } } }');
    expect(JSON.stringify([list, audit])).not.toContain(generatedPassword);
  });

  it('refuses a second operator with the same e-mail (any case) and writes nothing', async () => {
    const before = await sql`select (select count(*)::int from operators) as ops, (select count(*)::int from audit_log) as audit`;
    const reply = await gql(admin, CREATE, { email: 'GIVEN@example.com', role: 'admin', password: 'another long password' });
    expect(reply.errors?.[0]?.extensions?.code).toBe('operator_exists');
    expect(await sql`select (select count(*)::int from operators) as ops, (select count(*)::int from audit_log) as audit`).toEqual(before);
  });

  it.each([
    [{ email: 'not-an-email', role: 'admin' }, 'email'],
    [{ email: 'short@example.com', role: 'admin', password: 'short' }, 'password'],
  ])('refuses invalid input %o naming the field', async (variables, param) => {
    const reply = await gql(admin, CREATE, variables);
    expect(reply.errors?.[0]?.extensions).toMatchObject({ param });
  });

  it('leaves no operator and no audit entry when its transaction rolls back after the audit insert', async () => {
    // A test-only outer transaction: the verb reuses it (withTransaction), writes the operator and its
    // audit entry, and then a later step of the same transaction fails.
    const ctx = cliContext(svc.rt, 'test');
    const failure = new Error('a later step of the same transaction failed');
    let createdId: string | undefined;
    await expect(
      withTransaction(ctx, async (tx) => {
        const created = await createOperator({ ctx: tx, input: { email: 'rolled-back@example.com', role: 'support' } });
        createdId = created.id;
        const [seen] = await tx.db.execute<{ n: number }>(
          // Inside the transaction the entry is there...
          dsql`select count(*)::int as n from audit_log where target_id = ${created.id}`,
        );
        expect(seen!.n).toBe(1);
        throw failure;
      }),
    ).rejects.toBe(failure);
    // ...and after the rollback neither it nor the operator is.
    expect(createdId).toBeDefined();
    expect(await sql`select id from audit_log where target_id = ${createdId!}`).toEqual([]);
    expect(await sql`select id from operators where email = 'rolled-back@example.com'`).toEqual([]);
  });
});

describe('changeOperatorRole', () => {
  it('changes a role (audited with before and after); a demoted admin is refused admin-only mutations at once', async () => {
    const other = await createTestOperator(svc, 'admin');
    // Works before the demotion...
    await gqlData(other, CREATE, { email: 'before-demotion@example.com', role: 'support' });
    const data = await gqlData(admin, SET_ROLE, { id: other.id, role: 'support' });
    expect(data.changeOperatorRole).toEqual({ id: other.id, email: other.email, role: 'support' });
    // ...and not on the very next request of the same session: the role is read on every request.
    const refused = await gql(other, CREATE, { email: 'after-demotion@example.com', role: 'support' });
    expect(refused.errors?.[0]?.extensions?.code).toBe('forbidden');
    const { me } = await gqlData(other, '{ me { operator { role } allowedMutations } }');
    expect(me.operator).toEqual({ role: 'support' });
    expect(me.allowedMutations).not.toContain('createOperator');
    const audit = await auditOf(other.id);
    expect(audit.at(-1)).toEqual({
      actor: `operator:${admin.id}`,
      action: 'operator.role.change',
      before: { role: 'admin' },
      after: { role: 'support' },
    });
  });

  it('refuses to leave no admin (last_admin), and rolls back the change with its audit entry', async () => {
    // Every admin but `admin` demoted through the API, so one remains.
    const admins = await sql`select id from operators where role = 'admin' and id <> ${admin.id}`;
    for (const { id } of admins) await gqlData(admin, SET_ROLE, { id, role: 'support' });
    const auditBefore = await sql`select count(*)::int as n from audit_log`;

    const reply = await gql(admin, SET_ROLE, { id: admin.id, role: 'support' });
    expect(reply.errors?.[0]?.extensions?.code).toBe('last_admin');
    expect(reply.errors?.[0]?.message).toMatch(/no active admin/);
    // The verb updated the role and wrote the audit entry before counting admins: both are undone.
    const [row] = await sql`select role from operators where id = ${admin.id}`;
    expect(row!.role).toBe('admin');
    expect(await sql`select count(*)::int as n from audit_log`).toEqual(auditBefore);

    // With a second admin, the first may step down.
    const [second] = admins;
    await gqlData(admin, SET_ROLE, { id: second!.id, role: 'admin' });
    expect((await gqlData(admin, SET_ROLE, { id: admin.id, role: 'support' })).changeOperatorRole.role).toBe('support');
    // Back as it was, for the tests that follow (the CLI acts as an admin).
    await changeOperatorRole({ ctx: cliContext(svc.rt, 'test'), input: { id: admin.id, role: 'admin' } });
  });

  it('two admins demoting each other at once: one wins, one is refused, one admin remains', async () => {
    const admins = await sql`select id from operators where role = 'admin'`;
    const ctx = cliContext(svc.rt, 'test');
    // Down to exactly two admins: `admin` and one other.
    for (const { id } of admins.filter((a) => a.id !== admin.id).slice(1))
      await changeOperatorRole({ ctx, input: { id, role: 'support' } });
    const two = (await sql`select id from operators where role = 'admin'`).map((r) => r.id as string);
    expect(two).toHaveLength(2);
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(two.map((id) => changeOperatorRole({ ctx, input: { id, role: 'support' } })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'last_admin' } });
      expect(await sql`select count(*)::int as n from operators where role = 'admin'`).toEqual([{ n: 1 }]);
      for (const id of two) await changeOperatorRole({ ctx, input: { id, role: 'admin' } });
    }
  });

  it('answers resource_missing for an unknown id, and a no-op for the same role writes no audit entry', async () => {
    const missing = await gql(admin, SET_ROLE, { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', role: 'admin' });
    expect(missing.errors?.[0]?.extensions?.code).toBe('resource_missing');
    const before = await auditOf(support.id);
    expect((await gqlData(admin, SET_ROLE, { id: support.id, role: 'support' })).changeOperatorRole.role).toBe('support');
    expect(await auditOf(support.id)).toEqual(before);
  });
});

describe('support', () => {
  it('cannot create operators or change roles (forbidden), and nothing is written', async () => {
    const before = await sql`select (select count(*)::int from operators) as ops, (select count(*)::int from audit_log) as audit`;
    const create = await gql(support, CREATE, { email: 'by-support@example.com', role: 'admin', password: 'a long enough password' });
    expect(create.errors?.[0]?.extensions?.code).toBe('forbidden');
    const promote = await gql(support, SET_ROLE, { id: support.id, role: 'admin' });
    expect(promote.errors?.[0]?.extensions?.code).toBe('forbidden');
    expect(await sql`select (select count(*)::int from operators) as ops, (select count(*)::int from audit_log) as audit`).toEqual(before);
    const [row] = await sql`select role from operators where id = ${support.id}`;
    expect(row!.role).toBe('support');
  });

  it('lists operators, newest first, page by page', async () => {
    const all = await sql`select id, email, role from operators order by id desc`;
    const seen: { id: string; email: string; role: string }[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const data = await gqlData(
        support,
        'query($after: String) { operators(first: 2, after: $after) { nodes { id email role } pageInfo { hasNextPage endCursor } } }',
        { after },
      );
      seen.push(...data.operators.nodes);
      if (!data.operators.pageInfo.hasNextPage) break;
      after = data.operators.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((r) => ({ id: r.id, email: r.email, role: r.role })));
    expect(seen.length).toBeGreaterThan(3);
  });
});

describe('secrets', () => {
  it('no answer carries a password hash', async () => {
    const replies = await Promise.all([
      gql(admin, '{ operators(first: 100) { nodes { id email role createdAt } } }'),
      gql(admin, '{ auditLog(first: 100) { nodes { id at actor actorEmail action targetType targetId before after } } }'),
      gql(admin, '{ me { operator { id email role createdAt } } sessions(first: 100) { nodes { id operatorEmail } } }'),
      gql(admin, CREATE, { email: 'secret-check@example.com', role: 'support' }),
    ]);
    for (const r of replies) expect(r.errors).toBeUndefined();
    const hashes = await sql`select password_hash from operators`;
    const text = JSON.stringify(replies);
    expect(text).not.toContain('scrypt$');
    for (const { password_hash } of hashes) expect(text).not.toContain(password_hash.split('$')[3]);
  });
});
