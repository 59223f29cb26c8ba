import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export const MAIL_STATUSES = { queued: 'queued', sent: 'sent', kept: 'kept', failed: 'failed' } as const;
registerEnumType(MAIL_STATUSES, {
  name: 'MailStatus',
  description: 'kept: no SMTP_URL, so the message stays in the local outbox; queued: waiting for (or retrying) the mail server.',
});

@ObjectType('MailMessage', { description: 'A message the service sent, is sending, or keeps in the local outbox.' })
export class MailMessage {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  to!: string;

  @Field(() => String)
  subject!: string;

  @Field(() => String, { description: 'What it is about: handover, access_confirm, ...' })
  kind!: string;

  @Field(() => MAIL_STATUSES)
  status!: keyof typeof MAIL_STATUSES;

  @Field(() => Int)
  attempts!: number;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it went out, or was kept.' })
  sentAt!: Date | null;

  @Field(() => String, {
    nullable: true,
    description: 'The text, only while the message is kept in the local outbox (no SMTP_URL); never for mail that went out.',
  })
  body!: string | null;
}
