/** Where mail goes: SMTP (server/boot/smtp-mailer.ts, from SMTP_URL). Absent: the local outbox. */
export interface Mailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}
