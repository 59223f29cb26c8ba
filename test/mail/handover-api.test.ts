import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { createPartner } from '@/server/partners/create';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { call } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { NYC, startTestService, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// The hand-over as the operator API and the partner see it: issued with an e-mail in GraphQL, the link
// taken from the mail a real SMTP server received, opened through the public route.

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
let admin: TestOperator;
let support: TestOperator;
beforeAll(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({ SMTP_URL: smtp.url });
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
});
afterAll(() => smtp.close());

const ISSUE = `mutation($p: ID!, $e: String) { issueCredential(partnerId: $p, environment: sandbox, email: $e) { clientId key handedOverTo } }`;
const RESEND = `mutation($c: String!, $e: String) { resendHandover(clientId: $c, email: $e) { clientId handedOverTo keyReplaced } }`;

async function newPartnerId(): Promise<string> {
  return (await createPartner({ ctx: cliContext(svc.rt), input: { name: 'Handover API Co' } })).id;
}

/** The token of the newest hand-over link mailed to `email` (the `nth` such mail, counting from 1). */
async function linkTo(email: string, nth = 1): Promise<string> {
  const mail = await waitFor(`hand-over mail ${nth} to ${email}`, () => smtp.received.filter((m) => m.to.includes(email))[nth - 1]);
  return /\/handover\/([\w-]+)/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
}

const open = (token: string) => call('POST', `/api/handover/${token}`, { baseUrl: svc.url, headers: {} });
const quoteWith = (clientId: string, apiKey: string) =>
  call(
    'POST',
    '/partner/quotes',
    { baseUrl: svc.url, headers: { 'x-client-id': clientId, 'x-api-key': apiKey, 'content-type': 'application/json' } },
    NYC,
  );

describe('issuing with an e-mail', () => {
  it('answers no key, mails a link (never the key) that a GET does not use, and the POST shows the key once', async () => {
    const data = await gqlData(admin, ISSUE, { p: await newPartnerId(), e: 'dev@one.example' });
    expect(data.issueCredential).toMatchObject({ key: null, handedOverTo: 'dev@one.example' });
    const { clientId } = data.issueCredential;
    const token = await linkTo('dev@one.example');

    // Mail scanners and link previews fetch with GET: nothing is revealed or used.
    const get = await call('GET', `/api/handover/${token}`, { baseUrl: svc.url, headers: {} });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ environment: 'sandbox' });
    expect(get.headers.get('cache-control')).toBe('no-store');
    await call('GET', `/handover/${token}`, { baseUrl: svc.url, headers: {} });

    const shown = await open(token);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.body).toMatchObject({ client_id: clientId, environment: 'sandbox', api_key: expect.stringMatching(/^sk_sandbox_/) });
    const mail = smtp.received.find((m) => m.to.includes('dev@one.example'))!;
    expect(mail.raw).not.toContain(shown.body.api_key);
    expect((await quoteWith(clientId, shown.body.api_key)).status).toBe(201);

    expect((await call('GET', `/api/handover/${token}`, { baseUrl: svc.url, headers: {} })).body.error.code).toBe('handover_used');
    const again = await open(token);
    expect(again.status).toBe(409);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.body.error).toMatchObject({ code: 'handover_used', message: expect.stringMatching(/already used.*Ask your contact/s) });
    expect((await open('not-a-token')).body.error.code).toBe('handover_unknown');
  });

  it('refuses a bad address before issuing anything', async () => {
    const partnerId = await newPartnerId();
    const refused = await gql(admin, ISSUE, { p: partnerId, e: 'not-an-address' });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    const [row] = await svc.rt.db.execute<{ n: number }>(sql`select count(*)::int as n from credentials where partner_id = ${partnerId}`);
    expect(row!.n).toBe(0);
  });

  it('without an e-mail still answers the key', async () => {
    const data = await gqlData(admin, ISSUE, { p: await newPartnerId() });
    expect(data.issueCredential).toMatchObject({ key: expect.stringMatching(/^sk_sandbox_/), handedOverTo: null });
  });
});

describe('a new link', () => {
  it('before the key was shown carries the same key, and the old link dies', async () => {
    const { clientId } = (await gqlData(admin, ISSUE, { p: await newPartnerId(), e: 'dev@two.example' })).issueCredential;
    const first = await linkTo('dev@two.example');
    const resent = await gqlData(admin, RESEND, { c: clientId });
    expect(resent.resendHandover).toMatchObject({ handedOverTo: 'dev@two.example', keyReplaced: false });
    const second = await linkTo('dev@two.example', 2);
    expect((await open(first)).body.error.code).toBe('handover_replaced');
    const shown = await open(second);
    expect(shown.status).toBe(200);
    expect((await quoteWith(clientId, shown.body.api_key)).status).toBe(201);
  });

  it('after the key was shown carries a new key: the old key stops working', async () => {
    const { clientId } = (await gqlData(admin, ISSUE, { p: await newPartnerId(), e: 'dev@three.example' })).issueCredential;
    const oldKey = (await open(await linkTo('dev@three.example'))).body.api_key as string;
    const resent = await gqlData(admin, RESEND, { c: clientId, e: 'lead@three.example' });
    expect(resent.resendHandover).toMatchObject({ handedOverTo: 'lead@three.example', keyReplaced: true });
    const newKey = (await open(await linkTo('lead@three.example'))).body.api_key as string;
    expect(newKey).not.toBe(oldKey);
    expect((await quoteWith(clientId, newKey)).status).toBe(201);
    // The credential cache may answer for the old key for a few seconds (CREDENTIAL_CACHE_TTL_MS).
    await waitFor('the old key refused', async () => (await quoteWith(clientId, oldKey)).status === 401);
  });

  it('revoking the credential ends its open link and erases the sealed key', async () => {
    const { clientId } = (await gqlData(admin, ISSUE, { p: await newPartnerId(), e: 'dev@four.example' })).issueCredential;
    const token = await linkTo('dev@four.example');
    await gqlData(admin, `mutation($c: String!) { revokeCredential(clientId: $c) { clientId } }`, { c: clientId });
    const refused = await open(token);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('handover_replaced');
    const [row] = await svc.rt.db.execute<{ key_sealed: string | null; ended_at: Date | null }>(
      sql`select key_sealed, ended_at from credential_handovers where email = 'dev@four.example'`,
    );
    expect(row).toMatchObject({ key_sealed: null, ended_at: expect.anything() });
    expect((await gql(admin, RESEND, { c: clientId })).errors?.[0]?.extensions?.code).toBe('credential_revoked');
  });

  it("shows the latest link's state on the partner's credentials", async () => {
    const partnerId = await newPartnerId();
    await gqlData(admin, ISSUE, { p: partnerId, e: 'dev@five.example' });
    const q = `query($id: ID!) { partner(id: $id) { credentials { nodes { handover { email expiresAt usedAt endedAt } } } } }`;
    const before = await gqlData(support, q, { id: partnerId });
    expect(before.partner.credentials.nodes[0].handover).toMatchObject({ email: 'dev@five.example', usedAt: null, endedAt: null });
    await open(await linkTo('dev@five.example'));
    const after = await gqlData(support, q, { id: partnerId });
    expect(after.partner.credentials.nodes[0].handover.usedAt).not.toBeNull();
  });
});

describe('the outbox and roles', () => {
  it('support may not issue, resend or read the outbox', async () => {
    const partnerId = await newPartnerId();
    expect((await gql(support, ISSUE, { p: partnerId, e: 'x@six.example' })).errors?.[0]?.extensions?.code).toBe('forbidden');
    expect((await gql(support, RESEND, { c: 'ci_x' })).errors?.[0]?.extensions?.code).toBe('forbidden');
    expect((await gql(support, `{ mailMessages { nodes { id } } }`)).errors?.[0]?.extensions?.code).toBe('forbidden');
  });

  it('lists mail for admins; the body of mail that went out is never readable', async () => {
    await gqlData(admin, ISSUE, { p: await newPartnerId(), e: 'dev@seven.example' });
    await linkTo('dev@seven.example');
    const data = await waitFor('the message sent', async () => {
      const d = await gqlData(admin, `{ mailMessages(first: 100) { nodes { to subject kind status sentAt body } } }`);
      const m = d.mailMessages.nodes.find((n: { to: string }) => n.to === 'dev@seven.example');
      return m?.status === 'sent' ? m : undefined;
    });
    expect(data).toMatchObject({ subject: 'Your sandbox API credentials', kind: 'handover', body: null });
  });

  it('keeps mail without SMTP_URL and shows its body, link included', async () => {
    const local = await startTestService();
    const localAdmin = await createTestOperator(local, 'admin');
    const partnerId = (await createPartner({ ctx: cliContext(local.rt), input: { name: 'Kept Co' } })).id;
    await gqlData(localAdmin, ISSUE, { p: partnerId, e: 'dev@eight.example' });
    const kept = await waitFor('the message kept', async () => {
      const d = await gqlData(localAdmin, `{ mailMessages { nodes { to status body } } }`);
      return d.mailMessages.nodes.find((n: { status: string }) => n.status === 'kept');
    });
    expect(kept.to).toBe('dev@eight.example');
    expect(kept.body).toMatch(/https?:\/\/\S+\/handover\/[\w-]+/);
  });
});
