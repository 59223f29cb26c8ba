import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { NoticeStage } from '@/server/notices/stages';

export const NOTICE_STAGE_VALUES = {
  failing: 'failing',
  warning_50: 'warning_50',
  warning_90: 'warning_90',
  disabled: 'disabled',
  recovered: 'recovered',
} as const satisfies Record<NoticeStage, NoticeStage>;
registerEnumType(NOTICE_STAGE_VALUES, {
  name: 'WebhookNoticeStage',
  description:
    'failing: every attempt failed for WEBHOOK_NOTICE_FAILING_AFTER_SECONDS; warning_50 / warning_90: that share of WEBHOOK_AUTO_DISABLE_AFTER_HOURS; disabled: by its failures (gone, too_many_failures); recovered: a 2xx ended the streak.',
});

export const NOTICE_CHANNELS = { email: 'email', event: 'event' } as const;
registerEnumType(NOTICE_CHANNELS, { name: 'WebhookNoticeChannel' });

@ObjectType('TechnicalContacts', { description: "Who a partner's webhook failure notices are mailed to." })
export class TechnicalContacts {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => [String], { description: 'In order; the access request contact first. Empty: no mail.' })
  emails!: string[];

  @Field(() => Boolean, { description: 'Sandbox subscriptions notify (mail and webhook.* events) only when true. Default false.' })
  sandboxNotifications!: boolean;
}

@ObjectType('WebhookNoticeSend', { description: 'One thing a notice sent: a mail to a contact, or its event delivered to a subscription.' })
export class WebhookNoticeSend {
  @Field(() => NOTICE_CHANNELS)
  channel!: keyof typeof NOTICE_CHANNELS;

  @Field(() => String, {
    nullable: true,
    description: 'The address mailed, or the subscription the event went to; null: no subscription asks for the event.',
  })
  to!: string | null;

  @Field(() => String, { description: 'email: queued, sent, kept (local outbox), failed; event: the delivery status, or none.' })
  status!: string;

  @Field(() => Date, { description: 'When it went (sent, kept, last attempted), else when it was queued.' })
  at!: Date;
}

@ObjectType('WebhookNotice', { description: 'A stage of a failing streak, announced once.' })
export class WebhookNotice {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  subscriptionId!: string;

  @Field(() => NOTICE_STAGE_VALUES)
  stage!: NoticeStage;

  @Field(() => Date, { description: "The streak's first failure (the subscription's failingSince then)." })
  streakSince!: Date;

  @Field(() => Int, { nullable: true, description: 'Failed attempts in the streak when it was announced.' })
  failedAttempts!: number | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => ID, { nullable: true, description: 'The webhook.failing / webhook.disabled / webhook.recovered event.' })
  eventId!: string | null;

  @Field(() => [WebhookNoticeSend])
  sends!: WebhookNoticeSend[];
}
