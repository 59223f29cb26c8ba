import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { approveAccessRequest } from '@/server/access/approve';
import { confirmAccessRequest } from '@/server/access/confirm';
import { purgeUnconfirmedAccessRequests } from '@/server/access/purge';
import { rejectAccessRequest } from '@/server/access/reject';
import { ACCESS_MAILS_PER_RECIPIENT, ACCESS_REQUESTS_PER_WINDOW } from '@/server/access/request';
import { cliContext } from '@/server/cli/operator-context';
import { decideGoLive } from '@/server/partners/go-live';
import { startTestService, type TestService } from '../support/service';

// The public access-request form mails whatever address it is given: a stranger must not be able to
// turn it into a mail cannon (many addresses at once, one inbox many times, a whole IPv6 /64), nor
// write their own words and links into the mail, and what nobody confirmed does not stay forever.

const GLOBAL = 30;
let svc: TestService;
beforeAll(async () => {
  // Loopback is a trusted proxy, so each request speaks from the X-Forwarded-For address it names.
  svc = await startTestService({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32,::1/128', ACCESS_REQUESTS_PER_HOUR: String(GLOBAL) });
});

const tag = () => randomBytes(4).toString('hex');
const form = (overrides: Record<string, unknown> = {}) => ({
  company: `Courier ${tag()}`,
  contact_name: 'Ada Lovelace',
  contact_email: `ada-${tag()}@partner.example`,
  use_case: 'Same-day deliveries.',
  ...overrides,
});
const post = (body: unknown, address: string) =>
  fetch(`${svc.url}/partner/access-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });
async function confirmationMails(to?: string): Promise<number> {
  const [row] = await svc.rt.db.execute<{ n: number }>(
    sql`select count(*)::int as n from mail_messages where kind = 'access_confirm' and (${to ?? null}::text is null or to_address = ${to ?? null})`,
  );
  return row!.n;
}
async function clearRequests(): Promise<void> {
  await svc.rt.db.execute(sql`delete from access_requests`);
  await svc.rt.db.execute(sql`delete from mail_messages`);
}

describe('the access-request form as a mail cannon', () => {
  it('mails at most ACCESS_REQUESTS_PER_HOUR strangers an hour, however many addresses ask at once', async () => {
    await clearRequests();
    // As found: 20 addresses x 6 requests, all in parallel (100 mails were queued in 2 s).
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, a) => Array.from({ length: 6 }, () => post(form(), `198.51.100.${10 + a}`))).flat(),
    );
    const statuses = replies.map((r) => r.status);
    const mails = await confirmationMails();
    console.log(
      `[access burst] 120 requests from 20 addresses in ${Math.round(performance.now() - started)} ms: ` +
        `${statuses.filter((s) => s === 202).length} accepted, ${statuses.filter((s) => s === 429).length} refused, ${mails} mails queued (bound ${GLOBAL})`,
    );
    expect(statuses.every((s) => s === 202 || s === 429)).toBe(true);
    expect(mails).toBe(GLOBAL);
    const refused = replies.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('mails one recipient at most ACCESS_MAILS_PER_RECIPIENT times a day, answering every request alike', async () => {
    await clearRequests();
    const victim = `victim-${tag()}@inbox.example`;
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => post(form({ contact_email: victim }), `192.0.2.${20 + i}`)));
    const bodies = await Promise.all(replies.map((r) => r.json()));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(202));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(await confirmationMails(victim)).toBe(ACCESS_MAILS_PER_RECIPIENT);
    // Another recipient is untouched by that bound.
    expect((await post(form(), '192.0.2.99')).status).toBe(202);
  });

  it('counts an IPv6 client by its /64: new addresses in the same /64 share one budget', async () => {
    await clearRequests();
    const statuses: number[] = [];
    for (let i = 1; i <= ACCESS_REQUESTS_PER_WINDOW + 2; i++) statuses.push((await post(form(), `2001:db8:7:7::${i.toString(16)}`)).status);
    expect(statuses).toEqual([...Array(ACCESS_REQUESTS_PER_WINDOW).fill(202), 429, 429]);
    // The next /64 is another client.
    expect((await post(form(), '2001:db8:7:8::1')).status).toBe(202);
  });

  it('keeps a stranger’s words out of the mail: names are one line, and the mail carries only our text and link', async () => {
    await clearRequests();
    const evil = 'Dana\n\nUrgent: verify your account at https://phish.example/login';
    const refused = await post(form({ contact_name: evil }), '192.0.2.150');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.param).toBe('contact_name');
    expect((await post(form({ company: 'Acme\r\nhttps://phish.example' }), '192.0.2.151')).status).toBe(400);

    const to = `plain-${tag()}@inbox.example`;
    expect(
      (
        await post(
          form({ contact_email: to, company: 'https://phish.example Co', contact_name: 'See https://phish.example' }),
          '192.0.2.152',
        )
      ).status,
    ).toBe(202);
    const [mail] = await svc.rt.db.execute<{ body_sealed: string }>(sql`select body_sealed from mail_messages where to_address = ${to}`);
    const text = svc.rt.secretBox!.open(mail!.body_sealed);
    expect(text).not.toContain('phish.example');
    expect(text.match(/https?:\/\/\S+/g)).toHaveLength(1);
    expect(text).toMatch(/\/access\/confirm\//);
  });

  it('keeps a stranger’s words out of the mails that follow too: the rejection, and the go-live rejection of the partner named after them', async () => {
    await clearRequests();
    const ctx = cliContext(svc.rt, 'test');
    const mailOf = async (to: string, kind: string) => {
      const [mail] = await svc.rt.db.execute<{ body_sealed: string }>(
        sql`select body_sealed from mail_messages where to_address = ${to} and kind = ${kind}`,
      );
      return svc.rt.secretBox!.open(mail!.body_sealed);
    };
    /** A request in the stranger's words, confirmed as its contact would: its id and contact. */
    const confirmed = async (address: string) => {
      const body = form({ company: 'https://phish.example Co', contact_name: 'See https://phish.example' });
      expect((await post(body, address)).status).toBe(202);
      const token = /\/access\/confirm\/([\w-]+)/.exec(await mailOf(body.contact_email as string, 'access_confirm'))![1]!;
      await confirmAccessRequest({ ctx, input: { token } });
      const [row] = await svc.rt.db.execute<{ id: string; contact_email: string }>(
        sql`select id, contact_email from access_requests where contact_email = ${body.contact_email as string}`,
      );
      return row!;
    };
    const noStrangerWords = (text: string) => {
      expect(text).not.toContain('phish.example');
      expect(text).not.toMatch(/https?:\/\//);
    };

    const rejected = await confirmed('192.0.2.170');
    await rejectAccessRequest({ ctx, input: { id: rejected.id, reason: 'Not this time.' } });
    const rejection = await mailOf(rejected.contact_email, 'access_rejected');
    expect(rejection).toContain('Reason: Not this time.');
    noStrangerWords(rejection);

    // Approved, the partner is named after the company; its go-live review rejected with an e-mail.
    const approved = await approveAccessRequest({ ctx, input: { id: (await confirmed('192.0.2.171')).id } });
    await decideGoLive({ ctx, input: { partnerId: approved.partnerId!, decision: 'request' } });
    await decideGoLive({
      ctx,
      input: { partnerId: approved.partnerId!, decision: 'reject', note: 'No cancellations yet.', email: 'dev@inbox.example' },
    });
    const goLive = await mailOf('dev@inbox.example', 'go_live_rejected');
    expect(goLive).toContain('No cancellations yet.');
    expect(goLive).toContain(approved.partnerId!);
    noStrangerWords(goLive);
  });

  it('deletes unconfirmed requests a day after their link expired, and keeps the rest', async () => {
    await clearRequests();
    for (const i of [1, 2, 3]) expect((await post(form({ company: `Purge ${i}` }), `192.0.2.${160 + i}`)).status).toBe(202);
    await svc.rt.db.execute(sql`update access_requests set confirm_expires_at = now() - interval '25 hours' where company = 'Purge 1'`);
    await svc.rt.db.execute(sql`update access_requests set confirm_expires_at = now() - interval '23 hours' where company = 'Purge 2'`);
    await svc.rt.db.execute(
      sql`update access_requests set status = 'new', confirm_expires_at = now() - interval '30 days' where company = 'Purge 3'`,
    );
    expect(await purgeUnconfirmedAccessRequests({ ctx: cliContext(svc.rt) })).toBe(1);
    const left = await svc.rt.db.execute<{ company: string }>(sql`select company from access_requests order by company`);
    expect(left.map((r) => r.company)).toEqual(['Purge 2', 'Purge 3']);
  });
});
