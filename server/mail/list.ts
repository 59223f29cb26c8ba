import { desc, lt } from 'drizzle-orm';
import { mailMessages } from '@/db/schema';
import type { Ctx } from '../context';

export interface MailSummary {
  id: string;
  to: string;
  subject: string;
  kind: string;
  status: 'queued' | 'sent' | 'kept' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  /** Only while the message is kept in the local outbox (no SMTP_URL): mail that went out is never readable here. */
  body: string | null;
}

/** The mail the service sent or keeps, newest first (keyset on the ULID id). */
export async function listMail({ ctx, input }: { ctx: Ctx; input: { limit: number; after?: string } }): Promise<MailSummary[]> {
  const t = mailMessages;
  const rows = await ctx.db
    .select()
    .from(t)
    .where(input.after ? lt(t.id, input.after) : undefined)
    .orderBy(desc(t.id))
    .limit(input.limit);
  return rows.map((r) => ({
    id: r.id,
    to: r.toAddress,
    subject: r.subject,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    createdAt: r.createdAt,
    sentAt: r.sentAt,
    body: r.status === 'kept' && ctx.secretBox ? ctx.secretBox.open(r.bodySealed) : null,
  }));
}
