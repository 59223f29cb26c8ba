import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFor } from '@/server/context';
import { advanceNotices } from '@/server/notices/advance';
import { createTestOperator, gql } from '../support/operator-api';
import { clientFor, expectStatus, newOrder, newSubscription, type CreateSubscription } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { findSamples, parsePrometheus, scrape } from '../support/prometheus';
import { startReceiver, type ReceivedRequest, type Responder } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';
import { specSignatureMatches } from '../support/signature';
import { startSmtpServer, type ReceivedMail } from '../support/smtp';

// Failure notices end to end (server/notices/): real HTTPS receivers that fail, the real SMTP server,
// over shortened clocks: failing after 2 s of failures; disabled after 21.6 s (warnings at 10.8 s and
// 19.4 s), with a retry every second or so, so each stage is crossed by some failure.

const FAILING_AFTER_SECONDS = 2;
const DISABLE_AFTER_HOURS = 0.006;

let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const responders = new Map<string, Responder>();

beforeAll(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: Array(60).fill('1').join(','),
    WEBHOOK_TIMEOUT_MS: '700',
    WEBHOOK_NOTICE_FAILING_AFTER_SECONDS: String(FAILING_AFTER_SECONDS),
    WEBHOOK_AUTO_DISABLE_AFTER_HOURS: String(DISABLE_AFTER_HOURS),
  });
  receiver = await startReceiver((req, i) => (responders.get(req.path) ?? (() => ({ status: 200 })))(req, i));
});
afterAll(async () => {
  await receiver.close();
  await smtp.close();
});

let paths = 0;
async function subscribe(partner: TestPartner, respond: Responder, eventFilters: CreateSubscription['event_filters'] = ['order.created']) {
  const path = `/hooks/${++paths}`;
  responders.set(path, respond);
  const created = await newSubscription(partner, { url: `https://localhost:${receiver.port}${path}`, event_filters: eventFilters });
  return {
    id: created.id,
    url: created.url,
    secret: created.secret,
    at: () => receiver.received.filter((r) => r.path === path),
  };
}

const webhookOf = async (partner: TestPartner, id: string) =>
  expectStatus(200, await clientFor(partner).GET('/partner/webhooks/{id}', { params: { path: { id } } }));

const OPERATIONAL: CreateSubscription['event_filters'] = ['webhook.failing', 'webhook.disabled', 'webhook.recovered'];
const watch = (partner: TestPartner) => subscribe(partner, () => ({ status: 200 }), OPERATIONAL);

/** A partner with its technical contacts set through the API. */
async function partnerWithContacts(
  environment: 'sandbox' | 'production',
  emails: string[],
  extra: { sandbox_notifications?: boolean } = {},
) {
  const partner = await createTestPartner(svc, { environment });
  expectStatus(200, await clientFor(partner).PUT('/partner/contacts', { body: { emails, ...extra } }));
  return partner;
}

interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Headers unfolded, quoted-printable undone: the message as its reader sees it. */
function read(m: ReceivedMail): Mail {
  const [head = '', ...body] = m.raw.split(/\r?\n\r?\n/);
  const subject = /^Subject: (.*)$/m.exec(head.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? '';
  const text = body
    .join('\n\n')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return { to: m.to.join(','), subject, text };
}

/** The stage a mail announces, from its words. */
function stageOf(m: Mail): string {
  if (m.subject.includes(' failing: ')) return 'failing';
  if (m.text.includes('Half of the time')) return 'warning_50';
  if (m.text.includes('This is the last warning')) return 'warning_90';
  if (m.subject.includes(' disabled: ')) return 'disabled';
  if (m.subject.includes(' recovered: ')) return 'recovered';
  return 'unknown';
}

const mailsAbout = (subscriptionId: string) => smtp.received.map(read).filter((m) => m.text.includes(subscriptionId));
const stagesMailed = (subscriptionId: string, to: string) =>
  mailsAbout(subscriptionId)
    .filter((m) => m.to === to)
    .map(stageOf);

interface Operational {
  type: string;
  data: { object: { id: string; status: string; failure_streak: { stage: string; failed_attempts: number | null } } };
}
const eventOf = (r: ReceivedRequest) => JSON.parse(r.rawBody.toString()) as Operational;

async function noticeRows(subscriptionId: string) {
  return svc.rt.db.execute<{ stage: string; mails: number; event_id: string | null }>(
    sql`select stage, cardinality(mail_ids) as mails, event_id from webhook_notices where subscription_id = ${subscriptionId} order by id`,
  );
}

describe('failure notices', () => {
  it('a failing endpoint: failing, warning_50, warning_90 and disabled, each mailed once to every contact and sent once, signed, to the subscription that asks', async () => {
    const partner = await partnerWithContacts('production', ['Dev@Partner.example', 'ops@partner.example']);
    expect(expectStatus(200, await clientFor(partner).GET('/partner/contacts'))).toEqual({
      object: 'technical_contacts',
      emails: ['dev@partner.example', 'ops@partner.example'],
      sandbox_notifications: false,
    });
    const watcher = await watch(partner);
    const everything = await subscribe(partner, () => ({ status: 200 }), []);
    const failing = await subscribe(partner, () => ({ status: 503 }));
    const started = Date.now();
    await newOrder(partner);

    const disabled = await waitFor(
      'the failing subscription disabled',
      async () => {
        const res = await webhookOf(partner, failing.id);
        return res.status === 'disabled' && res;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(disabled.disabled_reason).toBe('too_many_failures');
    const stages = ['failing', 'warning_50', 'warning_90', 'disabled'];
    await waitFor('every stage mailed to both contacts', () => mailsAbout(failing.id).length >= 8, { timeoutMs: 20_000 });
    await waitFor('the four operational events at the watcher', () => watcher.at().length >= 4, { timeoutMs: 20_000 });
    await settle(2000, 'to show that no stage is mailed or sent twice');

    for (const to of ['dev@partner.example', 'ops@partner.example']) expect(stagesMailed(failing.id, to)).toEqual(stages);
    const first = mailsAbout(failing.id).find((m) => stageOf(m) === 'failing')!;
    expect(first.subject).toBe(`[production] Webhook endpoint failing: ${failing.url}`);
    expect(first.text).toContain(`Subscription:     ${failing.id} (production)`);
    expect(first.text).toMatch(/Last failure: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: HTTP 503/);
    expect(first.text).toMatch(/Failed attempts: +\d+/);
    expect(first.text).toContain(`/partner/webhooks/${failing.id}/deliveries`);
    // The delivery log the mail points at answers the partner's own key.
    const log = await clientFor(partner).GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: failing.id } } });
    expect(log.response.status).toBe(200);
    expect(mailsAbout(failing.id).find((m) => stageOf(m) === 'disabled')!.text).toContain('(too_many_failures)');

    // Each stage once at the watcher, signed with its secret, about the failing subscription.
    const events = watcher.at();
    expect(events.map((r) => [eventOf(r).type, eventOf(r).data.object.failure_streak.stage])).toEqual([
      ['webhook.failing', 'failing'],
      ['webhook.failing', 'warning_50'],
      ['webhook.failing', 'warning_90'],
      ['webhook.disabled', 'disabled'],
    ]);
    for (const r of events) {
      expect(specSignatureMatches(watcher.secret, r.headers['x-service-signature'], r.rawBody)).toBe(true);
      expect(r.headers['x-service-event']).toBe(eventOf(r).type);
      expect(eventOf(r).data.object.id).toBe(failing.id);
    }
    expect(eventOf(events[3]!).data.object.status).toBe('disabled');
    expect(eventOf(events[0]!).data.object.failure_streak.failed_attempts).toBeGreaterThanOrEqual(2);
    // Never to the failing subscription itself, nor to one that takes "every type" (empty filters).
    const typesAt = (r: ReceivedRequest[]) => r.map((x) => eventOf(x).type);
    expect(typesAt(failing.at()).every((t) => t === 'order.created')).toBe(true);
    expect(typesAt(everything.at())).toEqual(['order.created']);
    // The stages came in their order, none before its time.
    const rows = await noticeRows(failing.id);
    expect(rows.map((r) => [r.stage, r.mails])).toEqual(stages.map((s) => [s, 2]));
    expect(Date.now() - started).toBeGreaterThan(DISABLE_AFTER_HOURS * 3_600_000);

    // Operators see what was sent, to whom, and when.
    const admin = await createTestOperator(svc, 'admin');
    const seen = await gql(
      admin,
      `query($id: ID!) { subscriptionHealth(id: $id) { subscription {
        technicalContacts { emails sandboxNotifications }
        notices { stage streakSince failedAttempts sends { channel to status at } } } } }`,
      { id: failing.id },
    );
    expect(seen.errors).toBeUndefined();
    const sub = seen.data.subscriptionHealth.subscription;
    expect(sub.technicalContacts).toEqual({ emails: ['dev@partner.example', 'ops@partner.example'], sandboxNotifications: false });
    expect(sub.notices.map((n: { stage: string }) => n.stage)).toEqual([...stages].reverse());
    for (const notice of sub.notices) {
      expect(notice.sends).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ channel: 'email', to: 'dev@partner.example', status: 'sent' }),
          expect.objectContaining({ channel: 'email', to: 'ops@partner.example', status: 'sent' }),
          expect.objectContaining({ channel: 'event', to: watcher.id, status: 'succeeded' }),
        ]),
      );
      expect(notice.sends).toHaveLength(3);
    }

    // The metrics count them by stage and channel (this file's first notices).
    const samples = parsePrometheus((await scrape(`${svc.url}/metrics`)).text);
    for (const stage of stages) {
      expect(findSamples(samples, 'pdp_webhook_notices_total', { stage, channel: 'email' })[0]?.value).toBe(2);
      expect(findSamples(samples, 'pdp_webhook_notices_total', { stage, channel: 'event' })[0]?.value).toBe(1);
    }
    expect(findSamples(samples, 'pdp_webhook_notices_total', { stage: 'recovered', channel: 'email' })[0]?.value).toBe(0);

    // The CLI lists them too.
    const cli = await runAdmin(['notices', 'list', '--subscription', failing.id, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const listed = JSON.parse(cli.stdout) as { data: { stage: string; sends: { channel: string; to: string }[] }[] };
    expect(listed.data.map((n) => n.stage)).toEqual([...stages].reverse());
    expect(listed.data[0]!.sends.map((s) => s.to)).toEqual(['dev@partner.example', 'ops@partner.example', watcher.id]);
  }, 120_000);

  it('a failing endpoint that answers 2xx again: failing, then recovered; a 410 is disabled (gone) at once', async () => {
    const partner = await partnerWithContacts('production', ['dev@recover.example']);
    const watcher = await watch(partner);
    let answer = 503;
    const flaky = await subscribe(partner, () => ({ status: answer }));
    const gone = await subscribe(partner, () => ({ status: 410 }));
    await newOrder(partner);
    await waitFor('the failing mail', () => stagesMailed(flaky.id, 'dev@recover.example').includes('failing'), { timeoutMs: 20_000 });
    answer = 200;
    await waitFor('the recovered mail', () => stagesMailed(flaky.id, 'dev@recover.example').includes('recovered'), { timeoutMs: 20_000 });
    await waitFor('the disabled (gone) mail', () => stagesMailed(gone.id, 'dev@recover.example').includes('disabled'), {
      timeoutMs: 20_000,
    });
    await waitFor('three events at the watcher', () => watcher.at().length >= 3, { timeoutMs: 20_000 });
    await settle(1500, 'to show that nothing more is mailed or sent');

    expect(stagesMailed(flaky.id, 'dev@recover.example')).toEqual(['failing', 'recovered']);
    expect(stagesMailed(gone.id, 'dev@recover.example')).toEqual(['disabled']);
    const goneMail = mailsAbout(gone.id)[0]!;
    expect(goneMail.text).toContain('answered 410 Gone');
    const recovered = mailsAbout(flaky.id).find((m) => stageOf(m) === 'recovered')!;
    expect(recovered.subject).toMatch(/^\[production\] Webhook endpoint recovered: /);
    const seen = watcher
      .at()
      .map(eventOf)
      .map((e) => [e.type, e.data.object.id]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['webhook.failing', flaky.id],
        ['webhook.recovered', flaky.id],
        ['webhook.disabled', gone.id],
      ]),
    );
    expect(seen).toHaveLength(3);
    for (const r of watcher.at()) expect(specSignatureMatches(watcher.secret, r.headers['x-service-signature'], r.rawBody)).toBe(true);
    expect((await webhookOf(partner, flaky.id)).status).toBe('enabled');
    // The ended streak is forgotten once told of.
    const [row] = await svc.rt.db.execute<{ recovered_from: string | null }>(
      sql`select recovered_from from webhook_subscriptions where id = ${flaky.id}`,
    );
    expect(row!.recovered_from).toBeNull();
  }, 90_000);

  it('sandbox: nothing without the opt-in (no mail, no event, no record); with it, the mail and the event', async () => {
    const partner = await partnerWithContacts('sandbox', ['dev@sandbox.example']);
    const watcher = await watch(partner);
    const failing = await subscribe(partner, () => ({ status: 500 }));
    await newOrder(partner);
    // Past the failing threshold, with failures since, and the minute's job run on top.
    await waitFor(
      'a streak past the failing threshold, failed again since',
      async () => {
        const [s] = await svc.rt.db.execute<{ age: number; failures: number }>(sql`
          select extract(epoch from last_failure_at - failing_since)::float8 as age, streak_failures as failures
          from webhook_subscriptions where id = ${failing.id}`);
        return s && s.age > FAILING_AFTER_SECONDS + 1 && s.failures >= 4;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    await runTheMinutesJob();
    await settle(1000, 'to show that no sandbox notice goes out without the opt-in');
    expect(mailsAbout(failing.id)).toEqual([]);
    expect(watcher.at()).toEqual([]);
    expect(await noticeRows(failing.id)).toEqual([]);

    const optIn = await clientFor(partner).PUT('/partner/contacts', {
      body: { emails: ['dev@sandbox.example'], sandbox_notifications: true },
    });
    expect(expectStatus(200, optIn).sandbox_notifications).toBe(true);
    await runTheMinutesJob();
    const mail = await waitFor('a notice mailed once opted in', () => mailsAbout(failing.id)[0], { timeoutMs: 15_000 });
    expect(mail.subject).toMatch(/^\[sandbox\] Webhook endpoint /);
    expect(['failing', 'warning_50']).toContain(stageOf(mail));
    const [event] = await waitFor('its event at the watcher', () => watcher.at().length > 0 && watcher.at(), { timeoutMs: 15_000 });
    expect(eventOf(event!).type).toBe('webhook.failing');
    expect(JSON.parse(event!.rawBody.toString()).livemode).toBe(false);
  }, 90_000);

  it('many runs of the job at once announce each stage once', async () => {
    const partner = await partnerWithContacts('production', ['a@race.example', 'b@race.example']);
    const watcher = await watch(partner);
    const quiet = await subscribe(partner, () => ({ status: 200 }), ['webhook.test']);
    // A streak 5 s old (failing is due, warning_50 not), as if its failures had gone unnoticed; to the
    // millisecond, as the attempts' clock writes it.
    await svc.rt.db.execute(sql`
      update webhook_subscriptions set failing_since = date_trunc('milliseconds', now() - interval '5 seconds'), streak_failures = 7,
        last_failure_at = now() - interval '1 second', last_error_kind = 'timeout', last_response_status = null
      where id = ${quiet.id}`);
    const job = () => advanceNotices({ ctx: contextFor(svc.rt, { kind: 'system', name: 'webhooks.notices' }, 'test'), input: {} });
    const runs = await Promise.all(Array.from({ length: 6 }, job));
    expect(runs.flat().filter((a) => a.subscription_id === quiet.id)).toHaveLength(1);

    // The streak ends (as a success would end it), and six runs race to tell of it.
    await svc.rt.db.execute(sql`
      update webhook_subscriptions set recovered_from = failing_since, recovered_at = now(), failing_since = null where id = ${quiet.id}`);
    const again = await Promise.all(
      Array.from({ length: 6 }, () =>
        advanceNotices({
          ctx: contextFor(svc.rt, { kind: 'system', name: 'webhooks.notices' }, 'test'),
          input: { subscriptionId: quiet.id },
        }),
      ),
    );
    expect(again.flat().map((a) => a.stage)).toEqual(['recovered']);

    await waitFor('both stages mailed to both contacts', () => mailsAbout(quiet.id).length >= 4, { timeoutMs: 15_000 });
    await waitFor('both events at the watcher', () => watcher.at().length >= 2, { timeoutMs: 15_000 });
    await settle(1500, 'to show that no run mailed or sent twice');
    for (const to of ['a@race.example', 'b@race.example']) expect(stagesMailed(quiet.id, to)).toEqual(['failing', 'recovered']);
    // Each once; in either order, as the webhooks guide promises no order between events (the two were made within
    // milliseconds, fanned out by two loops: a fresh clone's run once received the recovery first).
    expect(
      watcher
        .at()
        .map((r) => eventOf(r).type)
        .sort(),
    ).toEqual(['webhook.failing', 'webhook.recovered']);
    expect(mailsAbout(quiet.id)[0]!.text).toMatch(/Last failure: .*: timeout/);
    expect((await noticeRows(quiet.id)).map((r) => r.stage)).toEqual(['failing', 'recovered']);
  }, 60_000);
});

/** The scheduled job's run (as its cron sends it every minute), sent now; resolves once a worker completed it. */
async function runTheMinutesJob(): Promise<void> {
  const id = await svc.rt.boss!.send('webhooks.notices', {});
  await waitFor(
    'the notices job completed',
    async () => {
      const [job] = await svc.rt.db.execute<{ state: string }>(sql`select state from pgboss.job where id = ${id}`);
      return job?.state === 'completed';
    },
    { timeoutMs: 15_000 },
  );
}

const ROOT = path.resolve(import.meta.dirname, '../..');

function runAdmin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/boot/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
