import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, createTestOperator, gql, gqlData, signIn, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let sql: postgres.Sql;
let admin: TestOperator;

beforeAll(async () => {
  svc = await startTestService({
    SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS: '3',
    SIGN_IN_FAILURES_PER_ADDRESS: '7',
    SIGN_IN_FAILURES_PER_ACCOUNT: '10',
    OPERATOR_SESSION_HOURS: '0.001',
    // Sign-ins "from" other addresses: X-Forwarded-For from the loopback proxy.
    TRUSTED_PROXY_CIDRS: '127.0.0.1/32,::1/128',
  });
  sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
  admin = await createTestOperator(svc, 'admin');
});
afterAll(() => sql?.end());

const from = (address: string) => ({ 'x-forwarded-for': address });

describe('sign-in', () => {
  it('sets an http-only SameSite=Lax cookie; me answers with the operator and role', async () => {
    const res = await signIn(svc.url, admin.email.toUpperCase(), admin.password);
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^pdp_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    expect(cookie).not.toContain('Secure');
    const data = await gqlData({ baseUrl: svc.url, cookie: cookieOf(res) }, '{ me { operator { id email role } allowedMutations } }');
    expect(data.me.operator).toEqual({ id: admin.id, email: admin.email, role: 'admin' });
  });

  it('answers a wrong password and an unknown e-mail alike', async () => {
    const wrong = await signIn(svc.url, admin.email, 'not-the-password');
    const unknown = await signIn(svc.url, 'nobody@example.com', 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [(await wrong.json()).error, (await unknown.json()).error];
    expect({ ...a, request_id: undefined }).toEqual({ ...b, request_id: undefined });
    expect(a.code).toBe('invalid_credentials');
  });

  it('refuses every GraphQL operation without a live session', async () => {
    for (const cookie of ['', 'pdp_session=forged', 'pdp_session=']) {
      const reply = await gql({ baseUrl: svc.url, cookie }, '{ me { operator { id } } }');
      expect(reply.status).toBe(401);
      expect(reply.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    }
  });
});

describe('the sign-in throttle (3 per account and address, 7 per address, 10 per account, in 15 minutes)', () => {
  it('an attacker at one address cannot lock the real operator at another out', async () => {
    const victim = await createTestOperator(svc, 'support');
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) answers.push((await signIn(svc.url, victim.email, `guess-${i}`, from('203.0.113.1'))).status);
    expect(answers).toEqual([401, 401, 401, ...Array(9).fill(429)]);
    // The attacker's address is done with this account, even with the right password...
    const refused = await signIn(svc.url, victim.email, victim.password, from('203.0.113.1'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // ...and the operator, elsewhere, signs in.
    expect((await signIn(svc.url, victim.email, victim.password, from('192.0.2.10'))).status).toBe(200);
  });

  it('one address trying many accounts stops at the per-address limit', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => createTestOperator(svc, 'support')));
    const answers: number[] = [];
    for (const account of accounts) {
      for (let i = 0; i < 3; i++) answers.push((await signIn(svc.url, account.email, `guess-${i}`, from('203.0.113.2'))).status);
    }
    expect(answers).toEqual([401, 401, 401, 401, 401, 401, 401, 429, 429]);
    expect((await signIn(svc.url, 'someone-else@example.com', 'guess', from('203.0.113.2'))).status).toBe(429);
  });

  it('many addresses guessing one account stop at the per-account limit, for every address', async () => {
    const victim = await createTestOperator(svc, 'support');
    const answers: number[] = [];
    for (let a = 0; a < 4; a++) {
      for (let i = 0; i < 3; i++) answers.push((await signIn(svc.url, victim.email, `guess-${i}`, from(`198.18.0.${a}`))).status);
    }
    expect(answers.filter((s) => s === 401)).toHaveLength(10);
    expect(answers.slice(10)).toEqual([429, 429]);
    expect((await signIn(svc.url, victim.email, victim.password, from('192.0.2.11'))).status).toBe(429);
  });

  it('counts an attempt whose check never finished (its process died) as a failure', async () => {
    const victim = await createTestOperator(svc, 'support');
    await sql`insert into sign_in_attempts (id, email, address, succeeded) values
      ('pending-1', ${victim.email}, '203.0.113.3', null), ('pending-2', ${victim.email}, '203.0.113.3', null)`;
    expect((await signIn(svc.url, victim.email, 'guess', from('203.0.113.3'))).status).toBe(401);
    expect((await signIn(svc.url, victim.email, victim.password, from('203.0.113.3'))).status).toBe(429);
  });

  it('a successful sign-in does not count against the limits', async () => {
    const op = await createTestOperator(svc, 'support');
    for (let i = 0; i < 5; i++) expect((await signIn(svc.url, op.email, op.password, from('203.0.113.4'))).status).toBe(200);
    const [row] =
      await sql`select count(*)::int as n from sign_in_attempts where email = ${op.email} and address = '203.0.113.4' and succeeded`;
    expect(row!.n).toBe(5);
  });
});
