import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, useProcesses } from '../support/processes';
import { clientFor, expectStatus, newOrder } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { createTestPartner } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// Failure notices with two worker processes over one database (`npm run worker` twice), each recording
// the failing endpoint's attempts and both working the notices queue, which the test floods meanwhile:
// each stage must still reach the SMTP server once per contact.

const fx = useProcesses({ teardown: 'stop' });
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

describe('failure notices across two worker processes', () => {
  it('each stage is mailed once per contact while both workers race on the notices queue', async () => {
    const env = {
      SMTP_URL: smtp.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '700',
      WEBHOOK_RETRY_SCHEDULE: Array(40).fill('1').join(','),
      WEBHOOK_NOTICE_FAILING_AFTER_SECONDS: '2',
      // 18 s: warnings at 9 s and 16.2 s.
      WEBHOOK_AUTO_DISABLE_AFTER_HOURS: '0.005',
      // Two workers: a subscription's share of the in-flight bound is one each, so both send its attempts.
      WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '2',
    };
    const workers = await Promise.all([fx.track(spawnWorker(fx.svc.databaseUrl, env)), fx.track(spawnWorker(fx.svc.databaseUrl, env))]);
    const partner = await createTestPartner(fx.svc, { environment: 'production' });
    expectStatus(200, await clientFor(partner).PUT('/partner/contacts', { body: { emails: ['one@two.example', 'two@two.example'] } }));
    const id = await fx.subscribe(partner, '/notices-failing', () => ({ status: 503 }));
    // Three orders: several deliveries retrying at once, so both workers record failures.
    for (let i = 0; i < 3; i++) await newOrder(partner);

    // Meanwhile, runs of the notices job for this subscription and of the whole scan, sent in bursts.
    let flooding = true;
    const flood = (async () => {
      while (flooding) {
        await Promise.all([
          ...Array.from({ length: 4 }, () => fx.svc.rt.boss!.send('webhooks.notices', { subscription_id: id })),
          fx.svc.rt.boss!.send('webhooks.notices', {}),
        ]);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const output = () => workers.map((w) => w.output.join('')).join('\n');
    try {
      await waitFor(
        'the subscription disabled and every stage mailed',
        async () => {
          const [row] = await fx.svc.rt.db.execute<{ status: string; n: number }>(sql`
            select s.status, (select count(*)::int from webhook_notices n where n.subscription_id = s.id) as n
            from webhook_subscriptions s where s.id = ${id}`);
          return row?.status === 'disabled' && row.n === 4;
        },
        { timeoutMs: 60_000, intervalMs: 250, context: output },
      );
    } finally {
      flooding = false;
      await flood;
    }
    await waitFor('eight mails at the SMTP server', () => smtp.received.filter((m) => m.raw.includes(id)).length >= 8, {
      timeoutMs: 20_000,
      context: output,
    });
    await settle(2000, 'to show that no stage is mailed twice');

    const mails = smtp.received.filter((m) => m.raw.replace(/=\r?\n/g, '').includes(id));
    const perRecipient = (to: string) => mails.filter((m) => m.to.includes(to)).length;
    expect(perRecipient('one@two.example')).toBe(4);
    expect(perRecipient('two@two.example')).toBe(4);
    const stages = await fx.svc.rt.db.execute<{ stage: string }>(
      sql`select stage from webhook_notices where subscription_id = ${id} order by id`,
    );
    expect(stages.map((s) => s.stage)).toEqual(['failing', 'warning_50', 'warning_90', 'disabled']);
    // The failures went on throughout (each crossing of a stage was a failure's, on either worker).
    const [attempts] = await fx.svc.rt.db.execute<{ n: number }>(sql`
      select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.subscription_id = ${id}`);
    expect(attempts!.n).toBeGreaterThan(10);
    const [jobs] = await fx.svc.rt.db.execute<{ n: number }>(sql`
      select count(*)::int as n from pgboss.job where name = 'webhooks.notices' and state = 'completed'`);
    console.log(`[notices] two workers: ${attempts!.n} failed attempts, ${jobs!.n} notices jobs run, 4 stages mailed once to each contact`);
  }, 150_000);
});
