import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { handOverCredential, revealHandover } from '@/server/credentials/hand-over';
import { issueCredential } from '@/server/credentials/issue';
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
});
