import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { revealHandover } from '@/server/credentials/hand-over';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
let admin: TestOperator;
let support: TestOperator;

beforeAll(async () => {
  smtp = await startSmtpServer();
  // Loopback is a trusted proxy here, so each test speaks from its own X-Forwarded-For address and
  // the per-address limit of one test never refuses another's requests.
  svc = await startTestService({ SMTP_URL: smtp.url, TRUSTED_PROXY_CIDRS: '127.0.0.1/32,::1/128', ACCESS_REQUESTS_PER_HOUR: '1000' });
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
});
afterAll(() => smtp.close());

const unique = () => randomBytes(4).toString('hex');
const someAddress = () => `203.0.113.${1 + Math.floor(Math.random() * 250)}`;

function form(overrides: Record<string, unknown> = {}) {
  const tag = unique();
  return {
    company: `Courier ${tag}`,
    contact_name: 'Ada Lovelace',
    contact_email: `ada-${tag}@partner.example`,
    website: 'https://partner.example',
    expected_monthly_orders: 1200,
    use_case: 'Same-day deliveries from our shops.',
    ...overrides,
  };
}

function post(path: string, body: unknown, address = someAddress(), headers: Record<string, string> = {}) {
  return fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The link of the newest mail to `to` whose body matches `link`, followed as a person would. */
async function linkIn(to: string, link: RegExp): Promise<{ token: string; raw: string }> {
  const mail = await waitFor(`mail to ${to}`, () => smtp.received.findLast((m) => m.to.includes(to) && link.test(unfold(m.raw))));
  const raw = unfold(mail.raw);
  return { token: link.exec(raw)![1]!, raw };
}
// Quoted-printable soft line breaks.
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '');

// The links' base is PUBLIC_BASE_URL (unset here); the path and token are what matter.
const CONFIRM_LINK = () => /https?:\/\/[^/\s]+\/access\/confirm\/([\w-]+)/;
const HANDOVER_LINK = () => /https?:\/\/[^/\s]+\/handover\/([\w-]+)/;

const LIST = `query($status: AccessRequestStatus) { accessRequests(first: 100, status: $status) { nodes {
  id company contactEmail status decidedBy decidedAt reason partnerId } } }`;
const APPROVE = `mutation($id: ID!) { approveAccessRequest(id: $id) { id status decidedBy decidedAt partnerId } }`;
const REJECT = `mutation($id: ID!, $reason: String!) { rejectAccessRequest(id: $id, reason: $reason) { id status decidedBy reason } }`;

async function listed(status?: string): Promise<{ id: string; company: string; contactEmail: string; status: string }[]> {
  return (await gqlData(admin, LIST, { status })).accessRequests.nodes;
}

/** A request made and confirmed through the public endpoints, with its id as operators see it. */
async function confirmedRequest(overrides: Record<string, unknown> = {}) {
  const body = form(overrides);
  const res = await post('/partner/access-requests', body);
  expect(res.status, await res.clone().text()).toBe(202);
  const { token } = await linkIn(body.contact_email, CONFIRM_LINK());
  const confirmed = await post('/partner/access-requests/confirm', { token });
  expect(confirmed.status, await confirmed.clone().text()).toBe(200);
  const row = (await listed('new')).find((r) => r.company === body.company)!;
  expect(row).toBeDefined();
  return { body, id: row.id, token };
}

describe('asking for access', () => {
  it('e-mails a confirmation link; confirming it (a POST) shows the request to operators, once', async () => {
    const body = form();
    const res = await post('/partner/access-requests', body);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ status: 'confirmation_sent' });
    const { token, raw } = await linkIn(body.contact_email, CONFIRM_LINK());
    expect(raw).toContain('Confirm your request for sandbox access');

    // Unconfirmed: nobody's yet.
    expect((await listed()).some((r) => r.company === body.company)).toBe(false);
    // Only the token's SHA-256 is stored.
    const [row] = await svc.rt.db.execute<{ confirm_token_hash: string; status: string }>(
      sql`select confirm_token_hash, status from access_requests where contact_email = ${body.contact_email}`,
    );
    expect(row!.status).toBe('unconfirmed');
    expect(row!.confirm_token_hash).not.toContain(token);

    const confirmed = await post('/partner/access-requests/confirm', { token });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ status: 'confirmed' });
    expect((await listed('new')).find((r) => r.company === body.company)).toMatchObject({
      contactEmail: body.contact_email,
      status: 'new',
    });

    const again = await post('/partner/access-requests/confirm', { token });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe('access_link_used');
  });

  it('refuses an expired or unknown confirmation link, and never lists the request', async () => {
    const body = form();
    expect((await post('/partner/access-requests', body)).status).toBe(202);
    const { token } = await linkIn(body.contact_email, CONFIRM_LINK());
    await svc.rt.db.execute(
      sql`update access_requests set confirm_expires_at = now() - interval '1 second' where contact_email = ${body.contact_email}`,
    );
    const expired = await post('/partner/access-requests/confirm', { token });
    expect(expired.status).toBe(409);
    expect((await expired.json()).error.code).toBe('access_link_expired');
    const unknown = await post('/partner/access-requests/confirm', { token: 'not-a-token' });
    expect((await unknown.json()).error.code).toBe('access_link_unknown');
    expect((await listed()).some((r) => r.company === body.company)).toBe(false);
  });

  it('answers the same for a known and an unknown address and company', async () => {
    const first = form();
    const a = await post('/partner/access-requests', first);
    const b = await post('/partner/access-requests', { ...form(), company: first.company, contact_email: first.contact_email });
    const c = await post('/partner/access-requests', form());
    const bodies = await Promise.all([a, b, c].map((r) => r.json()));
    expect([a.status, b.status, c.status]).toEqual([202, 202, 202]);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it.each([
    ['company', { company: '' }],
    ['company', { company: 'x'.repeat(201) }],
    ['contact_name', { contact_name: undefined }],
    ['contact_email', { contact_email: 'not-an-address' }],
    ['website', { website: 'javascript:alert(1)' }],
    ['expected_monthly_orders', { expected_monthly_orders: 1.5 }],
    ['expected_monthly_orders', { expected_monthly_orders: -1 }],
    ['use_case', { use_case: 'x'.repeat(2001) }],
    ['is_admin', { is_admin: true }],
  ])('refuses a bad %s with a 400 naming it', async (param, overrides) => {
    const res = await post('/partner/access-requests', form(overrides));
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.param).toBe(param);
    expect(error.request_id).toMatch(/^req_/);
  });

  it('refuses a body over 64 KiB and one that is not JSON', async () => {
    expect((await post('/partner/access-requests', JSON.stringify(form({ use_case: 'x'.repeat(70_000) })))).status).toBe(413);
    expect(
      (await post('/partner/access-requests', 'company=x', someAddress(), { 'content-type': 'application/x-www-form-urlencoded' })).status,
    ).toBe(415);
  });

  it('answers a flood from one address with 429 and Retry-After, and other addresses still get through', async () => {
    const address = '198.51.100.7';
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post('/partner/access-requests', form(), address)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429]);
    const refused = await post('/partner/access-requests', form(), address);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect((await post('/partner/access-requests', form(), '198.51.100.8')).status).toBe(202);
    // In parallel too: the count is taken under a per-address lock.
    const burst = await Promise.all(Array.from({ length: 8 }, () => post('/partner/access-requests', form(), '198.51.100.9')));
    expect(burst.filter((r) => r.status === 202)).toHaveLength(5);
  });
});

describe('operators deciding', () => {
  it('approve: creates the partner and its sandbox credential, and hands it over to the contact', async () => {
    const { body, id } = await confirmedRequest();
    const approved = (await gqlData(admin, APPROVE, { id })).approveAccessRequest;
    expect(approved).toMatchObject({ id, status: 'approved', decidedBy: admin.email });
    expect(approved.decidedAt).toBeTruthy();

    const [partner] = await svc.rt.db.execute<{ id: string; name: string }>(
      sql`select id, name from partners where id = ${approved.partnerId}`,
    );
    expect(partner!.name).toBe(body.company);

    const { token, raw } = await linkIn(body.contact_email, HANDOVER_LINK());
    expect(raw).toContain('sandbox API credentials');
    const shown = await revealHandover({ ctx: cliContext(svc.rt), input: { token } });
    expect(shown.environment).toBe('sandbox');
    const quote = await fetch(`${svc.url}/partner/event-types`, { headers: { 'x-client-id': shown.clientId, 'x-api-key': shown.apiKey } });
    expect(quote.status).toBe(200);

    expect((await listed('approved')).some((r) => r.id === id)).toBe(true);
    const again = await gql(admin, APPROVE, { id });
    expect(again.errors?.[0]?.extensions?.code).toBe('access_request_decided');

    const [audit] = await svc.rt.db.execute<{ actor: string }>(
      sql`select actor from audit_log where action = 'access_request.approve' and target_id = ${id}`,
    );
    expect(audit!.actor).toBe(`operator:${admin.id}`);
  });

  it('reject: e-mails the reason to the contact and records who decided', async () => {
    const { body, id } = await confirmedRequest();
    const reason = 'We do not serve your region yet.';
    const rejected = (await gqlData(admin, REJECT, { id, reason })).rejectAccessRequest;
    expect(rejected).toMatchObject({ id, status: 'rejected', decidedBy: admin.email, reason });
    const mail = await waitFor('the rejection', () =>
      smtp.received.find((m) => m.to.includes(body.contact_email) && unfold(m.raw).includes(reason)),
    );
    expect(mail.raw).toContain('Your request for sandbox access');
    const [audit] = await svc.rt.db.execute<{ n: number }>(
      sql`select count(*)::int as n from audit_log where action = 'access_request.reject' and target_id = ${id}`,
    );
    expect(audit!.n).toBe(1);
    const noReason = await gql(admin, REJECT, { id: (await confirmedRequest()).id, reason: ' ' });
    expect(noReason.errors?.[0]?.extensions?.param).toBe('reason');
  });

  it('support reads the list but may not approve or reject; an unconfirmed request is not found', async () => {
    const { id } = await confirmedRequest();
    const read = await gql(support, LIST, { status: 'new' });
    expect(read.errors).toBeUndefined();
    expect(read.data.accessRequests.nodes.some((r: { id: string }) => r.id === id)).toBe(true);
    for (const [query, vars] of [
      [APPROVE, { id }],
      [REJECT, { id, reason: 'no' }],
    ] as const) {
      const reply = await gql(support, query, vars);
      expect(reply.errors?.[0]?.extensions?.code).toBe('forbidden');
    }
    expect((await listed('new')).find((r) => r.id === id)?.status).toBe('new');

    const unconfirmed = form();
    await post('/partner/access-requests', unconfirmed);
    const [row] = await svc.rt.db.execute<{ id: string }>(
      sql`select id from access_requests where contact_email = ${unconfirmed.contact_email}`,
    );
    const reply = await gql(admin, APPROVE, { id: row!.id });
    expect(reply.errors?.[0]?.extensions?.code).toBe('resource_missing');
  });
});
