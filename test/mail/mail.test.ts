import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { withTransaction } from '@/server/context';
import { queueMail } from '@/server/mail/queue';
import { waitFor } from '../support/poll';
import { startTestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

const LINK = 'https://pdp.example/handover/tok_secret_part_123';

describe('mail', () => {
  it('goes out over SMTP from a queued job; the audit log has who and what about, never the body', async () => {
    const svc = await startTestService({ SMTP_URL: smtp.url, MAIL_FROM: 'Platform <ops@pdp.example>' });
    const { id } = await queueMail(cliContext(svc.rt), {
      to: 'dev@partner.example',
      subject: 'Your sandbox key',
      text: `Open ${LINK}`,
      kind: 'handover',
    });
    const mail = await waitFor('the message at the SMTP server', () => smtp.received.find((m) => m.to.includes('dev@partner.example')));
    expect(mail.from).toBe('ops@pdp.example');
    expect(mail.raw).toContain('Subject: Your sandbox key');
    expect(mail.raw).toContain(LINK);
    // The server has the message before the job records it as sent: the row follows a moment later.
    const row = await waitFor('the message recorded as sent', async () => {
      const [r] = await svc.rt.db.execute<{ status: string; body_sealed: string }>(
        sql`select status, body_sealed from mail_messages where id = ${id}`,
      );
      return r?.status === 'sent' ? r : undefined;
    });
    expect(row.status).toBe('sent');
    expect(row!.body_sealed).not.toContain('tok_secret');
    const audit = await svc.rt.db.execute(sql`select after from audit_log where target_id = ${id}`);
    expect(JSON.stringify(audit)).toContain('dev@partner.example');
    expect(JSON.stringify(audit)).not.toContain('tok_secret');
  });

  it('without SMTP_URL stays in the local outbox (kept) and the log says so', async () => {
    const svc = await startTestService({});
    const { id } = await queueMail(cliContext(svc.rt), { to: 'a@partner.example', subject: 'Hello', text: 'Body', kind: 'access_confirm' });
    await waitFor('the message kept', async () => {
      const [row] = await svc.rt.db.execute<{ status: string }>(sql`select status from mail_messages where id = ${id}`);
      return row?.status === 'kept';
    });
  });

  it('a rolled-back change sends nothing; a mail server that is down delays the message, which goes out once it is back', async () => {
    const down = await startSmtpServer();
    const url = down.url;
    await down.close();
    const svc = await startTestService({ SMTP_URL: url });
    const ctx = cliContext(svc.rt);
    await withTransaction(ctx, async (tx) => {
      await queueMail(tx, { to: 'never@partner.example', subject: 'Never', text: 'x', kind: 'test' });
      throw new Error('rolled back');
    }).catch(() => undefined);
    const { id } = await queueMail(ctx, { to: 'later@partner.example', subject: 'Later', text: 'y', kind: 'test' });
    const failed = await waitFor('a failed attempt recorded', async () => {
      const [row] = await svc.rt.db.execute<{ attempts: number; last_error: string | null; status: string }>(
        sql`select attempts, last_error, status from mail_messages where id = ${id}`,
      );
      return row && row.attempts > 0 ? row : undefined;
    });
    expect(failed).toMatchObject({ status: 'queued', last_error: expect.stringMatching(/ECONNREFUSED/) });
    const [never] = await svc.rt.db.execute<{ n: number }>(
      sql`select count(*)::int as n from mail_messages where to_address = 'never@partner.example'`,
    );
    expect(never!.n).toBe(0);
  });
});
