import nodemailer from 'nodemailer';
import type { Env } from '@/server/config/env';
import type { Mailer } from '@/server/mail/mailer';

/** The SMTP mailer of SMTP_URL (nodemailer, one pooled connection), or none: mail then stays in the local outbox. */
export function smtpMailer(env: Pick<Env, 'SMTP_URL' | 'MAIL_FROM'>): Mailer | undefined {
  if (!env.SMTP_URL) return undefined;
  const transport = nodemailer.createTransport(env.SMTP_URL, { from: env.MAIL_FROM });
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ to, subject, text });
    },
  };
}
