import { mailMessages } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { newId } from '../ids';
import { enqueue } from '../outbox/enqueue';
import { SEND_MAIL } from '../outbox/queues';

export interface OutgoingMail {
  to: string;
  subject: string;
  /** Plain text. It may carry a one-time link: it is stored sealed and never logged or audited. */
  text: string;
  /** What the message is about (access_confirm, handover, access_rejected, go_live_rejected...). */
  kind: string;
}

/**
 * Queues an e-mail in the caller's transaction: the message row (body sealed) and its send job commit
 * with the change that asked for it, so a committed change always sends its mail and a rolled-back one
 * never does, and the request never waits for a mail server. The audit log gets who, to whom and what
 * about, never the body.
 */
export async function queueMail(ctx: Ctx, mail: OutgoingMail): Promise<{ id: string }> {
  if (!ctx.secretBox) throw new Error('no secret encryption key in this process: mail bodies are stored sealed');
  const box = ctx.secretBox;
  return withTransaction(ctx, async (tx) => {
    const id = newId();
    await tx.db.insert(mailMessages).values({
      id,
      toAddress: mail.to,
      subject: mail.subject,
      bodySealed: box.seal(mail.text),
      kind: mail.kind,
      status: 'queued',
      createdAt: new Date(),
    });
    await enqueue(tx, SEND_MAIL, { message_id: id });
    await recordAudit(tx, {
      action: 'mail.queue',
      targetType: 'mail_message',
      targetId: id,
      after: { to: mail.to, kind: mail.kind, subject: mail.subject },
    });
    return { id };
  });
}
