import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAuditLog } from '@/server/audit/export';
import { recordAudit } from '@/server/audit/record';
import { cliContext } from '@/server/cli/operator-context';
import { contextFor } from '@/server/context';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let sql: postgres.Sql;
let admin: TestOperator;
let support: TestOperator;
let created: { id: string; email: string };

const BULK = 1_203;
// Printed as the export prints them; the seed rows are in 2020 so "since" filters can pick them out.
const T = (second: number) => `2020-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
  const reply = await gqlData(admin, `mutation { createOperator(email: "audited@example.com", role: support) { operator { id email } } }`);
  created = reply.createOperator.operator;
  // Seed rows with chosen times: seconds 1..6, and two more sharing second 3 to the microsecond.
  for (let s = 1; s <= 6; s++) {
    await sql`insert into audit_log (id, actor, action, target_type, target_id, before, after, at)
      values (${`01H000000000000000000000${String(s).padStart(2, '0')}`}, 'system:seed', 'seed.row', 'thing', ${`t${s}`}, null, ${sql.json({ n: s })}, ${T(s)})`;
  }
  await sql`insert into audit_log (id, actor, action, target_type, target_id, at) values
    ('01H00000000000000000000031', 'system:seed', 'seed.row', 'thing', 't3b', ${T(3)}),
    ('01H00000000000000000000032', 'system:seed', 'seed.row', 'thing', 't3c', ${T(3)})`;
  await sql`insert into audit_log (id, actor, action, target_type, target_id, at)
    select 'BULK' || lpad(g::text, 22, '0'), 'system:bulk', 'bulk.row', 'thing', 'b' || g, timestamptz '2019-01-01' + g * interval '1 second'
    from generate_series(1, ${BULK}) g`;
  // What a spreadsheet must not run, and what CSV must quote.
  const tricky = contextFor(svc.rt, { kind: 'system', name: 'csv, "quoted"\nline' }, 'req_test');
  await recordAudit(tricky, {
    action: 'test.escape',
    targetType: '@SUM(A1)',
    targetId: '=HYPERLINK("http://evil.test")',
    before: { note: 'comma, "quote"', password: 'hunter2hunter2', nested: [{ api_key: 'sk_live_abc' }] },
    after: { n: -1, text: '+cmd' },
  });
});
afterAll(() => sql?.end());

const LOG = `query($filter: AuditFilter, $first: Int!, $after: String) {
  auditLog(filter: $filter, first: $first, after: $after) {
    nodes { id at actor actorEmail action targetType targetId before after }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function all(who: TestOperator, filter: Record<string, unknown>, first = 100) {
  const nodes: Record<string, unknown>[] = [];
  let after: string | null = null;
  for (let page = 0; page < 50; page++) {
    const data = await gqlData(who, LOG, { filter, first, after });
    nodes.push(...data.auditLog.nodes);
    if (!data.auditLog.pageInfo.hasNextPage) return nodes;
    after = data.auditLog.pageInfo.endCursor;
  }
  throw new Error('too many pages');
}

function exportOf(who: Pick<TestOperator, 'baseUrl' | 'cookie'>, query: string) {
  return fetch(`${who.baseUrl}/api/audit-log/export?${query}`, { headers: { cookie: who.cookie } });
}

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(cell, 'the last record ends with CRLF').toBe('');
  return rows;
}

describe('auditLog', () => {
  it("records the operator's action with their e-mail (joined) and the changed fields", async () => {
    const [entry] = await all(support, { targetType: 'operator', targetId: created.id });
    expect(entry).toMatchObject({
      actor: `operator:${admin.id}`,
      actorEmail: admin.email,
      action: 'operator.create',
      targetType: 'operator',
      targetId: created.id,
      before: null,
      after: { email: 'audited@example.com', role: 'support' },
    });
  });

  it('filters by actor (e-mail, id or raw), action, target, since and until', async () => {
    const ids = (nodes: Record<string, unknown>[]) => nodes.map((n) => n.targetId);
    expect(ids(await all(admin, { actor: admin.email.toUpperCase(), action: 'operator.create' }))).toEqual([created.id]);
    expect(ids(await all(admin, { actor: admin.id, action: 'operator.create' }))).toEqual([created.id]);
    expect(ids(await all(admin, { actor: 'system:seed' }))).toEqual(['t6', 't5', 't4', 't3c', 't3b', 't3', 't2', 't1']);
    expect(ids(await all(admin, { actor: 'nobody@example.com' }))).toEqual([]);
    expect(ids(await all(admin, { action: 'seed.row', since: T(3), until: T(5) }))).toEqual(['t4', 't3c', 't3b', 't3']);
    expect(ids(await all(admin, { targetType: 'thing', targetId: 't2' }))).toEqual(['t2']);
    const seeded = (await all(admin, { action: 'seed.row', since: T(6) }))[0]!;
    expect(seeded).toMatchObject({ at: T(6), actor: 'system:seed', actorEmail: null, before: null, after: { n: 6 } });
  });

  it('pages newest first without gaps or repeats, ties on the same moment included', async () => {
    const seen = await all(support, { action: 'seed.row' }, 3);
    expect(seen.map((n) => n.targetId)).toEqual(['t6', 't5', 't4', 't3c', 't3b', 't3', 't2', 't1']);
    const everything = await all(admin, {}, 100);
    expect(everything.length).toBeGreaterThan(BULK);
    expect(new Set(everything.map((n) => n.id)).size).toBe(everything.length);
    const times = everything.map((n) => Date.parse(n.at as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('refuses bad arguments with the parameter named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ first: 0 }, 'first'],
      [{ first: 10, after: 'bm90IGEgY3Vyc29y' }, 'after'],
      [{ first: 10, filter: { since: T(5), until: T(1) } }, 'filter.until'],
      [{ first: 10, filter: { action: 'x'.repeat(101) } }, 'filter.action'],
    ];
    for (const [variables, param] of cases) {
      const reply = await gql(admin, LOG, variables);
      expect(reply.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ param });
    }
  });

  it('stores secrets masked, whatever the verb passed', async () => {
    const [row] = await sql`select before from audit_log where action = 'test.escape'`;
    expect(row!.before).toEqual({ note: 'comma, "quote"', password: '[masked]', nested: [{ api_key: '[masked]' }] });
    const [entry] = await all(admin, { action: 'test.escape' });
    expect(JSON.stringify(entry)).not.toMatch(/hunter2|sk_live/);
  });
});

describe('GET /api/audit-log/export', () => {
  it('CSV: an attachment, RFC 4180 quoting, formulas neutralised', async () => {
    const res = await exportOf(support, 'format=csv&action=test.escape');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-[\dTZ-]+\.csv"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const [id] = await sql`select id, at from audit_log where action = 'test.escape'`;
    expect(text).toBe(
      'id,at,actor,actor_email,action,target_type,target_id,before,after\r\n' +
        `${id!.id},${id!.at.toISOString()},"system:csv, ""quoted""\nline",,test.escape,'@SUM(A1),"'=HYPERLINK(""http://evil.test"")",` +
        `"{""note"":""comma, \\""quote\\"""",""nested"":[{""api_key"":""[masked]""}],""password"":""[masked]""}",` +
        `"{""n"":-1,""text"":""+cmd""}"\r\n`,
    );
    const rows = parseCsv(text);
    expect(rows[1]).toEqual([
      id!.id,
      id!.at.toISOString(),
      'system:csv, "quoted"\nline',
      '',
      'test.escape',
      "'@SUM(A1)",
      `'=HYPERLINK("http://evil.test")`,
      // jsonb keeps keys shortest first.
      JSON.stringify({ note: 'comma, "quote"', nested: [{ api_key: '[masked]' }], password: '[masked]' }),
      JSON.stringify({ n: -1, text: '+cmd' }),
    ]);
  });

  it('CSV of many pages: every matching entry once, newest first; an empty result is the header alone', async () => {
    const rows = parseCsv(await (await exportOf(admin, 'actor=system:bulk')).text());
    expect(rows[0]![0]).toBe('id');
    expect(rows.length - 1).toBe(BULK);
    expect(rows[1]![6]).toBe(`b${BULK}`);
    expect(rows.at(-1)![6]).toBe('b1');
    expect(new Set(rows.map((r) => r[0])).size).toBe(rows.length);
    expect(await (await exportOf(admin, 'action=no.such.action')).text()).toBe(
      'id,at,actor,actor_email,action,target_type,target_id,before,after\r\n',
    );
  });

  it('NDJSON: one JSON object per line, with the same filters', async () => {
    const res = await exportOf(admin, `format=ndjson&action=seed.row&since=${encodeURIComponent(T(3))}&until=${Date.parse(T(5)) / 1000}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-[\dTZ-]+\.ndjson"$/);
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.target_id)).toEqual(['t4', 't3c', 't3b', 't3']);
    expect(lines[0]).toEqual({
      id: '01H00000000000000000000004',
      at: T(4),
      actor: 'system:seed',
      actor_email: null,
      action: 'seed.row',
      target_type: 'thing',
      target_id: 't4',
      before: null,
      after: { n: 4 },
    });
    const mine = (await (await exportOf(admin, `format=ndjson&actor=${admin.id}&action=operator.create`)).text()).trimEnd().split('\n');
    expect(JSON.parse(mine[0]!)).toMatchObject({ actor_email: admin.email, target_id: created.id });
  });

  it('the verb reads the log in pages of 500, one query each', async () => {
    const sizes: number[] = [];
    for await (const page of exportAuditLog({ ctx: cliContext(svc.rt, 'test'), input: { filter: { actor: 'system:bulk' } } }))
      sizes.push(page.length);
    expect(sizes).toEqual([500, 500, BULK - 1000]);
  });

  it('needs a session, and refuses bad parameters before sending anything', async () => {
    const anonymous = await exportOf({ baseUrl: svc.url, cookie: '' }, 'format=csv');
    expect(anonymous.status).toBe(401);
    const cases: [string, string, string][] = [
      ['format=xlsx', 'format', 'parameter_invalid'],
      ['targetType=operator', 'targetType', 'parameter_unknown'],
      ['since=yesterday', 'since', 'parameter_invalid'],
      [`since=${encodeURIComponent(T(5))}&until=${encodeURIComponent(T(1))}`, 'filter.until', 'parameter_invalid'],
      ['action=a&action=b', 'action', 'parameter_invalid'],
    ];
    for (const [query, param, code] of cases) {
      const res = await exportOf(admin, query);
      expect(res.status, query).toBe(400);
      expect((await res.json()).error, query).toMatchObject({ param, code });
    }
  });
});
