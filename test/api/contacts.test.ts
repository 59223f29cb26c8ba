import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { approveAccessRequest } from '@/server/access/approve';
import { cliContext } from '@/server/cli/operator-context';
import { newId } from '@/server/ids';
import { createTestOperator, gql } from '../support/operator-api';
import { call, clientFor, expectStatus } from '../support/partner-api';
import { approveGoLive, createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// GET/PUT /partner/contacts: who a partner's webhook failure notices are mailed to (server/partners/).

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
});

async function auditOf(partnerId: string) {
  return svc.rt.db.execute<{ actor: string; before: unknown; after: unknown }>(
    sql`select actor, before, after from audit_log where action = 'partner.contacts.set' and target_id = ${partnerId} order by id`,
  );
}

/** The partner's contacts as GET /partner/contacts answers them (200 expected). */
async function contactsOf(who: TestPartner) {
  return expectStatus(200, await clientFor(who).GET('/partner/contacts'));
}

describe('technical contacts through the partner API', () => {
  it('starts empty; PUT replaces the list (trimmed, lower-cased) and keeps the sandbox opt-in unless given; both keys share it; audited', async () => {
    const sandbox = await createTestPartner(svc);
    expect(await contactsOf(sandbox)).toEqual({
      object: 'technical_contacts',
      emails: [],
      sandbox_notifications: false,
    });
    const put = await clientFor(sandbox).PUT('/partner/contacts', {
      body: { emails: [' Dev@Acme.example ', 'ops@acme.example'], sandbox_notifications: true },
    });
    expect(expectStatus(200, put)).toEqual({
      object: 'technical_contacts',
      emails: ['dev@acme.example', 'ops@acme.example'],
      sandbox_notifications: true,
    });
    // Absent, the opt-in stays as it was.
    const again = await clientFor(sandbox).PUT('/partner/contacts', { body: { emails: ['ops@acme.example'] } });
    expect(expectStatus(200, again)).toMatchObject({ emails: ['ops@acme.example'], sandbox_notifications: true });

    // The partner's, not an environment's: its production key reads the same list.
    await approveGoLive(cliContext(svc.rt, 'test'), sandbox.partnerId);
    const production = await createTestPartner(svc, { environment: 'production', partnerId: sandbox.partnerId });
    expect((await contactsOf(production)).emails).toEqual(['ops@acme.example']);
    // Another partner's list is its own.
    expect((await contactsOf(await createTestPartner(svc))).emails).toEqual([]);

    const audit = await auditOf(sandbox.partnerId);
    expect(audit).toHaveLength(2);
    expect(audit[0]).toEqual({
      actor: `partner:${sandbox.partnerId}`,
      before: { emails: [], sandbox_notifications: false },
      after: { emails: ['dev@acme.example', 'ops@acme.example'], sandbox_notifications: true },
    });
  });

  it.each([
    ['an address that is not one', { emails: ['not-an-address'] }, 'emails.0'],
    ['the same address twice, in any case', { emails: ['a@x.example', 'A@X.example'] }, 'emails.1'],
    ['more than 10', { emails: Array.from({ length: 11 }, (_, i) => `c${i}@x.example`) }, 'emails'],
    ['no list', { sandbox_notifications: true }, 'emails'],
    ['an opt-in that is not a boolean', { emails: [], sandbox_notifications: 'yes' }, 'sandbox_notifications'],
    ['an unknown field', { emails: [], cc: ['x@x.example'] }, 'cc'],
  ])('refuses %s: 400 naming it, nothing changed', async (_, body, param) => {
    const partner = await createTestPartner(svc);
    const res = await call('PUT', '/partner/contacts', partner, body);
    expect(res.status).toBe(400);
    expect(res.body.error.errors.map((e: { param: string }) => e.param)).toContain(param);
    expect((await contactsOf(partner)).emails).toEqual([]);
  });

  it('needs credentials', async () => {
    const partner = await createTestPartner(svc);
    expect((await call('GET', '/partner/contacts', { ...partner, headers: {} })).status).toBe(401);
    expect(
      (await call('PUT', '/partner/contacts', { ...partner, headers: { 'content-type': 'application/json' } }, { emails: [] })).status,
    ).toBe(401);
  });

  it('is in the OpenAPI document, PUT with its 400', async () => {
    const doc = await (await fetch(`${svc.url}/partner/openapi.json`)).json();
    expect(Object.keys(doc.paths['/partner/contacts'])).toEqual(['get', 'put']);
    expect(Object.keys(doc.paths['/partner/contacts'].put.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
  });
});

describe('technical contacts by operators and on approval', () => {
  it('an admin replaces them through GraphQL, audited in their name; support may not', async () => {
    const partner = await createTestPartner(svc);
    const admin = await createTestOperator(svc, 'admin');
    const mutation = `mutation($p: ID!, $e: [String!]!, $s: Boolean) {
      setTechnicalContacts(partnerId: $p, emails: $e, sandboxNotifications: $s) { partnerId emails sandboxNotifications } }`;
    const set = await gql(admin, mutation, { p: partner.partnerId, e: ['Lead@Acme.example'], s: true });
    expect(set.errors).toBeUndefined();
    expect(set.data.setTechnicalContacts).toEqual({
      partnerId: partner.partnerId,
      emails: ['lead@acme.example'],
      sandboxNotifications: true,
    });
    const bad = await gql(admin, mutation, { p: partner.partnerId, e: ['nope'] });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'emails.0' });
    expect((await auditOf(partner.partnerId))[0]!.actor).toBe(`operator:${admin.id}`);
    const support = await createTestOperator(svc, 'support');
    expect((await gql(support, mutation, { p: partner.partnerId, e: [] })).errors?.[0]?.extensions?.code).toBe('forbidden');
  });

  it("an approved access request's contact is the partner's first; the migration gave existing partners theirs", async () => {
    const requestRow = async (email: string) => {
      const id = newId();
      await svc.rt.db.execute(sql`
        insert into access_requests (id, company, contact_name, contact_email, use_case, status, source_address, created_at)
        values (${id}, 'Acme', 'Ada', ${email}, 'deliveries', 'new', '203.0.113.9', now())`);
      return id;
    };
    const approved = await approveAccessRequest({ ctx: cliContext(svc.rt, 'test'), input: { id: await requestRow('Ada@Acme.example') } });
    const [partner] = await svc.rt.db.execute<{ technical_contacts: string[] }>(
      sql`select technical_contacts from partners where id = ${approved.partnerId}`,
    );
    expect(partner!.technical_contacts).toEqual(['ada@acme.example']);

    // The backfill of db/migrations/0013, run as committed, on a partner approved before it existed.
    const before = await createTestPartner(svc);
    const id = await requestRow(' Old@Acme.example');
    await svc.rt.db.execute(
      sql`update access_requests set status = 'approved', partner_id = ${before.partnerId}, decided_at = now() where id = ${id}`,
    );
    const migration = readFileSync(path.resolve('db/migrations/0013_failure_notices.sql'), 'utf8');
    const backfill = migration.split('--> statement-breakpoint').find((s) => s.includes('UPDATE "partners"'))!;
    await svc.rt.db.execute(sql.raw(backfill));
    expect((await contactsOf(before)).emails).toEqual(['old@acme.example']);
  });
});
