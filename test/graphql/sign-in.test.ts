import { beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, createTestOperator, gql, gqlData, signIn, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let admin: TestOperator;

beforeAll(async () => {
  svc = await startTestService({
    SIGN_IN_FAILURES_PER_ACCOUNT: '3',
    SIGN_IN_FAILURES_PER_ADDRESS: '1000',
    OPERATOR_SESSION_HOURS: '0.001',
  });
  admin = await createTestOperator(svc, 'admin');
});

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
