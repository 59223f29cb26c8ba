import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { handOverCredential, revealHandover } from '@/server/credentials/hand-over';
import { issueCredential } from '@/server/credentials/issue';
import { resendHandover } from '@/server/credentials/resend-handover';
import { createPartner } from '@/server/partners/create';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
beforeAll(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://pdp.example' });
});
afterAll(() => smtp.close());

async function handedOver(email: string) {
  const ctx = cliContext(svc.rt);
  const partner = await createPartner({ ctx, input: { name: 'Handover Co' } });
  const issued = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'sandbox' } });
  await handOverCredential({ ctx, input: { clientId: issued.client_id, apiKey: issued.api_key, email } });
  const mail = await waitFor('the hand-over mail', () => smtp.received.find((m) => m.to.includes(email)));
  const token = /https:\/\/pdp\.example\/handover\/([\w-]+)/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
  return { issued, mail, token };
}

describe('credential hand-over', () => {
  it('e-mails a one-time link, never the key; the link shows the key once', async () => {
    const { issued, mail, token } = await handedOver('dev1@partner.example');
    expect(mail.raw).not.toContain(issued.api_key);
    const shown = await revealHandover({ ctx: cliContext(svc.rt), input: { token } });
    expect(shown).toEqual({ clientId: issued.client_id, apiKey: issued.api_key, environment: 'sandbox' });
    // Used: the key is erased, and a second visit is refused with whom to ask.
    await expect(revealHandover({ ctx: cliContext(svc.rt), input: { token } })).rejects.toMatchObject({ code: 'handover_used' });
    const [row] = await svc.rt.db.execute<{ key_sealed: string | null }>(
      sql`select key_sealed from credential_handovers where email = 'dev1@partner.example'`,
    );
    expect(row!.key_sealed).toBeNull();
  });

  it('refuses an expired link, a replaced one and an unknown one', async () => {
    const first = await handedOver('dev2@partner.example');
    await svc.rt.db.execute(
      sql`update credential_handovers set expires_at = now() - interval '1 second' where email = 'dev2@partner.example'`,
    );
    await expect(revealHandover({ ctx: cliContext(svc.rt), input: { token: first.token } })).rejects.toMatchObject({
      code: 'handover_expired',
    });

    const again = await handedOver('dev3@partner.example');
    await handOverCredential({
      ctx: cliContext(svc.rt),
      input: { clientId: again.issued.client_id, apiKey: again.issued.api_key, email: 'dev3b@partner.example' },
    });
    await expect(revealHandover({ ctx: cliContext(svc.rt), input: { token: again.token } })).rejects.toMatchObject({
      code: 'handover_replaced',
    });
    await expect(revealHandover({ ctx: cliContext(svc.rt), input: { token: 'nope' } })).rejects.toMatchObject({ code: 'handover_unknown' });
  });

  it('a resend that meets a reveal in flight never puts the shown key on the new link', async () => {
    const { issued, token } = await handedOver('dev4@partner.example');
    const ctx = cliContext(svc.rt);
    // Hold the reveal between its update of the link and its commit: its audit row waits on this lock.
    const holder = postgres(svc.databaseUrl, { max: 2, onnotice: () => {} });
    let release!: () => void;
    const held = holder.begin(async (tx) => {
      await tx`lock table audit_log in exclusive mode`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    try {
      await waitFor('the lock on audit_log', async () => {
        const [row] = await holder`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
          where c.relname = 'audit_log' and l.mode = 'ExclusiveLock' and l.granted`;
        return row!.n > 0;
      });
      const reveal = revealHandover({ ctx, input: { token } });
      await waitFor('the reveal waiting to commit', async () => {
        const [row] =
          await holder`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%audit_log%'`;
        return row!.n > 0;
      });
      const resend = resendHandover({ ctx, input: { clientId: issued.client_id } });
      // Let the resend read what it reads before the reveal commits (without a lock, it reads the sealed key).
      await waitFor('the resend waiting on the link', async () => {
        const [row] =
          await holder`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%credential_handovers%'`;
        return row!.n > 0;
      });
      release();
      await held;
      const shown = await reveal;
      const resent = await resend;
      expect(resent.key_replaced).toBe(true);
      const mails = await waitFor('the second mail', () => {
        const to = smtp.received.filter((m) => m.to.includes('dev4@partner.example'));
        return to.length === 2 ? to : undefined;
      });
      const second = /https:\/\/pdp\.example\/handover\/([\w-]+)/.exec(mails[1]!.raw.replace(/=\r?\n/g, ''))![1]!;
      const again = await revealHandover({ ctx, input: { token: second } });
      expect(again.apiKey).not.toBe(shown.apiKey);
    } finally {
      release?.();
      await held.catch(() => {});
      await holder.end();
    }
  });
});
