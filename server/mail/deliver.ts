import { and, eq, sql } from 'drizzle-orm';
import { mailMessages } from '@/db/schema';
import type { Ctx } from '../context';
import { loggableError } from '../logger';

/**
 * Sends one queued message: over the process's mailer (SMTP), or, without one, keeps it in the local
 * outbox (status `kept`) and says so in the log, so a newcomer's terminal shows the mail went out. A
 * failed send records the error (never the body) and throws, so the job is retried with back-off.
 * A message already sent or kept is left alone: a retried job sends nothing twice.
 */
export async function deliverQueuedMail({ ctx, input }: { ctx: Ctx; input: { messageId: string } }): Promise<'sent' | 'kept' | 'done'> {
  const [message] = await ctx.db
    .select()
    .from(mailMessages)
    .where(and(eq(mailMessages.id, input.messageId), eq(mailMessages.status, 'queued')));
  if (!message) return 'done';
  if (!ctx.mailer) {
    await ctx.db.update(mailMessages).set({ status: 'kept', sentAt: new Date() }).where(eq(mailMessages.id, message.id));
    ctx.log.info(
      { mail_id: message.id, to: message.toAddress, subject: message.subject },
      `mail kept in the local outbox (no SMTP_URL): "${message.subject}" to ${message.toAddress}; open the console's Outbox to read it`,
    );
    return 'kept';
  }
  if (!ctx.secretBox) throw new Error('no secret encryption key in this process: mail bodies are sealed');
  const text = ctx.secretBox.open(message.bodySealed);
  try {
    await ctx.mailer.send({ to: message.toAddress, subject: message.subject, text });
  } catch (error) {
    const described = loggableError(error);
    const reason = (typeof described === 'string' ? described : described.message).slice(0, 500);
    await ctx.db
      .update(mailMessages)
      .set({ attempts: sql`${mailMessages.attempts} + 1`, lastError: reason })
      .where(eq(mailMessages.id, message.id));
    throw error;
  }
  await ctx.db
    .update(mailMessages)
    .set({ status: 'sent', sentAt: new Date(), attempts: sql`${mailMessages.attempts} + 1`, lastError: null })
    .where(eq(mailMessages.id, message.id));
  return 'sent';
}
