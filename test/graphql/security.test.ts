import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { cliContext } from '@/server/cli/operator-context';
import { aggregatesOf, MAX_AGGREGATES, MAX_DEPTH, operationDepth, shapeRefusal } from '@/server/graphql/limits';
import { operatorSchema } from '@/server/graphql/schema';
import { purgeOldSessions } from '@/server/sessions/purge';
import { cookieOf, createTestOperator, gql, gqlData, signIn, type TestOperator } from '../support/operator-api';
import { captureLogs } from '../support/logs';
import { settle } from '../support/poll';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;
const logs = captureLogs('info');

beforeAll(async () => {
  svc = await startTestService({ SIGN_IN_FAILURES_PER_ACCOUNT: '3', SIGN_IN_FAILURES_PER_ADDRESS: '8' }, { log: logs.log });
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
});

const post = (who: TestOperator, body: string, headers: Record<string, string>) =>
  fetch(`${svc.url}/api/graphql`, { method: 'POST', headers: { cookie: who.cookie, ...headers }, body });

describe('CSRF prevention', () => {
  it('refuses a simple cross-site style request (text/plain or form POST, a bare GET) even with a valid session', async () => {
    const fresh = await createTestOperator(svc, 'admin');
    const query = JSON.stringify({ query: '{ me { operator { id } } }' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await post(fresh, query, { 'content-type': type });
      expect(res.status, type).toBe(400);
      expect(await res.text()).toMatch(/CSRF|preflight/i);
    }
    const get = await fetch(`${svc.url}/api/graphql?query=${encodeURIComponent('{ me { operator { id } } }')}`, {
      headers: { cookie: fresh.cookie },
    });
    expect(get.status).toBe(400);
    const json = await post(fresh, query, { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
  });
});

describe('schema exposure', () => {
  it('has introspection and the landing page off outside development', async () => {
    const reply = await gql(admin, '{ __schema { types { name } } }');
    expect(reply.errors?.[0]?.message).toMatch(/introspection/i);
    const page = await fetch(`${svc.url}/api/graphql`, { headers: { cookie: admin.cookie, accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/<html/i);
  });

  it('has introspection on with NODE_ENV=development', async () => {
    const dev = await startTestService({ NODE_ENV: 'development' });
    const op = await createTestOperator(dev, 'support');
    const data = await gqlData(op, '{ __schema { queryType { name } } }');
    expect(data.__schema.queryType.name).toBe('Query');
  });
});

describe('operation bounds', () => {
  it('measures depth through fragments and inline fragments', () => {
    const nested = (n: number): string => (n === 0 ? 'id' : `a { ${nested(n - 1)} }`);
    expect(operationDepth(parse(`{ ${nested(MAX_DEPTH)} }`))).toBe(MAX_DEPTH + 1);
    expect(operationDepth(parse('fragment F on Query { me { operator { id } } } query { ...F }'))).toBe(3);
    expect(operationDepth(parse('query { me { ... on Viewer { operator { id } } } }'))).toBe(3);
  });

  it('refuses an operation that would cost too much (many aliased pages)', async () => {
    const pages = Array.from({ length: 120 }, (_, i) => `p${i}: sessions(first: 100) { edges { cursor node { id operatorEmail } } }`).join(
      ' ',
    );
    const reply = await gql(admin, `{ ${pages} }`);
    expect(reply.errors?.[0]?.extensions?.code).toBe('query_too_costly');
  });

  it('judges the same text again by its variables: a verdict kept for one set of them is not reused for another', async () => {
    // server/graphql/verdicts.ts keeps verdicts by text, operation name and variables.
    const query = 'query Q($first: Int!) { sessions(first: $first) { edges { node { id } } } }';
    const nested = 'query Q($first: Int!) { partners(first: $first) { nodes { webhookSubscriptions(first: 100) { nodes { id url } } } } }';
    for (let round = 0; round < 2; round++) {
      expect((await gql(admin, query, { first: 5 })).errors).toBeUndefined();
      expect((await gql(admin, nested, { first: 2 })).errors).toBeUndefined();
      const refused = await gql(admin, nested, { first: 200 });
      expect([refused.status, refused.errors?.[0]?.extensions?.code]).toEqual([400, 'query_too_costly']);
      const wrong = await gql(admin, query, { first: 'many' });
      expect([wrong.status, wrong.errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_USER_INPUT']);
    }
  });
});

describe('variables', () => {
  // Issue 21 item 6: the cost analysis met the raw variables before Apollo coerced them: a 500 and a logged stack.
  it.each([
    ['an Int given a string', 'query Q($first: Int!) { partners(first: $first) { nodes { id } } }', { first: 'many' }, /\$first/],
    ['an ID given an object', 'query Q($id: ID!) { partner(id: $id) { id } }', { id: { $ne: 1 } }, /\$id/],
    ['a required variable missing', 'query Q($first: Int!) { partners(first: $first) { nodes { id } } }', {}, /\$first/],
  ])('of the wrong type (%s) are a 400 BAD_USER_INPUT, logged as no error', async (_, query, variables, named) => {
    const before = logs.lines.length;
    const reply = await gql(support, query, variables);
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(reply.errors?.[0]?.message).toMatch(named);
    const logged = logs.entries().slice(before);
    expect(logged.filter((e) => Number(e.level) >= 50 || 'err' in e)).toEqual([]);
    expect(logged.some((e) => e.msg === 'operator request' && e.status === 400)).toBe(true);
  });
});

describe('aggregates', () => {
  const overview = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `o${i}: overview(windowMinutes: 1440) { attempts }`).join(' ')} }`;

  it(`allows ${MAX_AGGREGATES} in one operation and refuses one more, naming them`, async () => {
    expect((await gql(support, overview(MAX_AGGREGATES))).errors).toBeUndefined();
    const reply = await gql(support, overview(MAX_AGGREGATES + 1));
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.extensions?.code).toBe('query_too_costly');
    expect(reply.errors?.[0]?.message).toContain(`Query.overview ×${MAX_AGGREGATES + 1}`);
    const health = Array.from(
      { length: MAX_AGGREGATES + 1 },
      (_, i) => `h${i}: subscriptionHealth(id: "x", windowHours: 168) { attempts }`,
    );
    const refused = await gql(support, `{ ${health.join(' ')} }`);
    expect([refused.status, refused.errors?.[0]?.extensions?.code]).toEqual([400, 'query_too_costly']);
    expect(refused.errors?.[0]?.message).toContain(`Query.subscriptionHealth ×${MAX_AGGREGATES + 1}`);
  });

  it('counts a fragment each time it is used, and the latest failures with their overview', async () => {
    const fragment = 'fragment F on Query { overview { latestFailures { attemptId } } }';
    expect((await gql(support, `${fragment} query { ...F }`)).errors).toBeUndefined();
    const twice = await gql(support, `${fragment} query { ...F ... on Query { ...F } }`);
    expect(twice.errors?.[0]?.extensions?.code).toBe('query_too_costly');
    expect(twice.errors?.[0]?.message).toContain('Overview.latestFailures ×2');
  });

  it("counts an aggregate once per row under a list, unless one statement reads the whole list's", () => {
    const schema = operatorSchema();
    const count = (query: string, variables = {}) => {
      const document = parse(query);
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      return [...aggregatesOf(schema, document, operation, variables).values()].reduce((a, b) => a + b, 0);
    };
    expect(count('{ partners(first: 100) { nodes { webhookSubscriptions(first: 100) { nodes { successRate { ratio } } } } } }')).toBe(1);
    expect(count('query($n: Int) { partners(first: $n) { nodes { goLive { checklist { id } } } } }', { n: 5 })).toBe(5);
    expect(count('{ partner(id: "p") { goLive { checklist { id } } } }')).toBe(1);
  });

  it('walks a document not yet validated: a fragment cycle ends, and fragments nested in fragments are walked once each', async () => {
    const cycle = await gql(support, 'fragment A on Query { ...B } fragment B on Query { ...A me { sessionId } } { ...A }');
    expect([cycle.status, cycle.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    // F0 spreads F1 twice, ... F39 reads an overview: 2^39 overviews, were each spread walked anew.
    const fragments = Array.from({ length: 40 }, (_, i) =>
      i === 39
        ? `fragment F${i} on Query { overview { attempts } }`
        : `fragment F${i} on Query { ...F${i + 1} ... on Query { ...F${i + 1} } }`,
    );
    const nested = await gql(support, `${fragments.join(' ')} { ...F0 }`);
    expect([nested.status, nested.errors?.[0]?.extensions?.code]).toEqual([400, 'query_too_costly']);
  });

  it('keeps every console operation within the bounds (app/**: graphql(`...`))', () => {
    const schema = operatorSchema();
    const files = readdirSync('app', { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => path.join('app', f));
    let operations = 0;
    for (const file of files) {
      for (const [, text] of readFileSync(file, 'utf8').matchAll(/graphql\(`([\s\S]*?)`/g)) {
        const document = parse(text!);
        for (const d of document.definitions) {
          if (d.kind !== Kind.OPERATION_DEFINITION) continue;
          operations++;
          expect(shapeRefusal(schema, document, d), `${file} ${d.name?.value}`).toBeUndefined();
        }
      }
    }
    expect(operations).toBeGreaterThan(10);
  });
});

describe('sessions', () => {
  it('expire: a session past OPERATOR_SESSION_HOURS is refused', async () => {
    const short = await startTestService({ OPERATOR_SESSION_HOURS: '0.0005' });
    const op = await createTestOperator(short, 'support');
    expect((await gql(op, '{ me { operator { id } } }')).status).toBe(200);
    await settle(2000, 'the session lifetime (0.0005 h = 1.8 s) to pass');
    const reply = await gql(op, '{ me { operator { id } } }');
    expect(reply.status).toBe(401);
    expect(reply.errors?.[0]?.extensions?.code).toBe('unauthenticated');
  });

  it('sign-out ends only that session; an admin can revoke anyone else’s', async () => {
    const first = await createTestOperator(svc, 'support');
    const second = { ...first, cookie: cookieOf(await signIn(svc.url, first.email, first.password)) };
    const out = await fetch(`${svc.url}/api/session`, { method: 'DELETE', headers: { cookie: first.cookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/pdp_session=; .*Max-Age=0/);
    expect((await gql(first, '{ me { operator { id } } }')).status).toBe(401);
    const mine = await gqlData(second, '{ me { sessionId } }');
    expect((await gql(second, '{ me { operator { id } } }')).status).toBe(200);

    // support cannot end another operator's session; an admin can.
    const other = await createTestOperator(svc, 'support');
    const refused = await gql(other, 'mutation($id: ID!) { revokeSession(id: $id) }', { id: mine.me.sessionId });
    expect(refused.errors?.[0]?.extensions?.code).toBe('forbidden');
    const listed = await gqlData(admin, 'query($op: ID) { sessions(operatorId: $op) { nodes { id current } } }', { op: first.id });
    expect(listed.sessions.nodes.map((s: { id: string }) => s.id)).toEqual([mine.me.sessionId]);
    await gqlData(admin, 'mutation($id: ID!) { revokeSession(id: $id) }', { id: mine.me.sessionId });
    expect((await gql(second, '{ me { operator { id } } }')).status).toBe(401);
  });

  it('lists no token or hash', async () => {
    const data = await gqlData(admin, '{ sessions { nodes { id operatorEmail current } } }');
    expect(JSON.stringify(data)).not.toContain(admin.cookie.split('=')[1]);
  });
});

describe('purging', () => {
  it('deletes sign-in attempts older than a day and sessions ended over 30 days ago, and nothing newer', async () => {
    const op = await createTestOperator(svc, 'support');
    await svc.rt.db.execute(sql`update sign_in_attempts set at = now() - interval '25 hours' where email = ${op.email}`);
    await svc.rt.db.execute(sql`update operator_sessions set expires_at = now() - interval '31 days' where operator_id = ${op.id}`);
    const live = await createTestOperator(svc, 'support');
    const purged = await purgeOldSessions({ ctx: cliContext(svc.rt) });
    expect(purged).toEqual({ attempts: 1, sessions: 1 });
    const [left] = await svc.rt.db.execute<{ n: number }>(
      sql`select count(*)::int as n from operator_sessions where operator_id = ${live.id}`,
    );
    expect(left!.n).toBe(1);
  });
});

describe('sign-in throttle', () => {
  it('answers 429 after 3 failures for an account, even with the right password then, and other accounts still sign in', async () => {
    const victim = await createTestOperator(svc, 'support');
    for (let i = 0; i < 3; i++) expect((await signIn(svc.url, victim.email, 'wrong-password-123')).status).toBe(401);
    const blocked = await signIn(svc.url, victim.email, victim.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(svc.url, support.email, support.password)).status).toBe(200);
  });

  it('answers 429 to an address that failed too often across accounts', async () => {
    const own = await startTestService({ SIGN_IN_FAILURES_PER_ADDRESS: '4', SIGN_IN_FAILURES_PER_ACCOUNT: '100' });
    const op = await createTestOperator(own, 'admin');
    for (let i = 0; i < 4; i++) await signIn(own.url, `guess${i}@example.com`, 'wrong-password-123');
    expect((await signIn(own.url, op.email, op.password)).status).toBe(429);
  });
});
