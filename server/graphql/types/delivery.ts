import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
import type { AttemptRow } from '@/server/webhooks/attempts-of';
import type { DeliveryOutcome, StatusClass } from '@/server/webhooks/search-deliveries';
import { ENVIRONMENTS } from './environment';

export const DELIVERY_OUTCOMES = {
  pending: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  skipped: 'skipped',
} as const satisfies Record<DeliveryOutcome, DeliveryOutcome>;
registerEnumType(DELIVERY_OUTCOMES, {
  name: 'DeliveryOutcome',
  description: 'pending: on its way or waiting for a retry; skipped: its subscription was disabled.',
});

// GraphQL enum values cannot start with a digit: `S2XX` stands for 2xx.
export const STATUS_CLASSES = { S2XX: '2xx', S3XX: '3xx', S4XX: '4xx', S5XX: '5xx', NONE: 'none' } as const satisfies Record<
  string,
  StatusClass
>;
registerEnumType(STATUS_CLASSES, {
  name: 'StatusClass',
  description: "The latest attempt's response status class; NONE: no HTTP answer (not attempted, timeout, connection, TLS...).",
});

export const ATTEMPT_TRIGGERS = { scheduled: 'scheduled', manual: 'manual', replay: 'replay' } as const;
registerEnumType(ATTEMPT_TRIGGERS, { name: 'AttemptTrigger', description: 'scheduled: first try or retry; manual: a redelivery; replay.' });

@ObjectType('HttpHeader')
export class HttpHeader {
  @Field(() => String)
  name!: string;

  @Field(() => String)
  value!: string;
}

@ObjectType('DeliveryAttempt', { description: 'One HTTP request of a delivery, as sent and as answered.' })
export class DeliveryAttempt {
  @Field(() => ID)
  id!: string;

  @Field(() => Int, { description: '1 for the first attempt; manual and replay attempts continue the count.' })
  number!: number;

  @Field(() => ATTEMPT_TRIGGERS)
  trigger!: 'scheduled' | 'manual' | 'replay';

  @Field(() => String, {
    nullable: true,
    description: 'Who asked for a manual or replay attempt: partner:<client id> or operator:<e-mail>.',
  })
  requestedBy!: string | null;

  @Field(() => String, { description: 'The API version its body was rendered in.' })
  apiVersion!: string;

  @Field(() => Date)
  startedAt!: Date;

  @Field(() => Int)
  durationMs!: number;

  // requestHeaders and responseHeaders: made from these only when asked (server/graphql/resolvers/deliveries.ts).
  /** Not exposed: the row's fields the request's headers are rebuilt from. */
  row!: AttemptRow;

  @Field(() => Int, { nullable: true })
  responseStatus!: number | null;

  @Field(() => String, { nullable: true, description: 'The first 2 KiB of the response body.' })
  responseBodyExcerpt!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'timeout | connection | tls | dns | blocked_address | http_status | internal; null on success.',
  })
  errorKind!: string | null;

  @Field(() => String, { nullable: true })
  errorMessage!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The address the request was sent to (after the address policy); null if it never connected.',
  })
  resolvedAddress!: string | null;
}

@ObjectType('Delivery', { description: 'One event to one subscription, with every attempt.' })
export class Delivery {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  eventId!: string;

  @Field(() => String)
  eventType!: string;

  @Field(() => ID)
  subscriptionId!: string;

  @Field(() => String, { description: "The subscription's URL now." })
  url!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => ID, { nullable: true, description: 'The order the event is about (order.* events).' })
  orderId!: string | null;

  @Field(() => DELIVERY_OUTCOMES)
  outcome!: DeliveryOutcome;

  @Field(() => String, {
    description: "The API version its attempts render the event in: the subscription's when made, or reopened by a redelivery or replay.",
  })
  apiVersion!: string;

  @Field(() => Int)
  attemptCount!: number;

  @Field(() => Date, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true })
  lastAttemptAt!: Date | null;

  @Field(() => ID, { nullable: true, description: 'The replay that last re-sent it.' })
  replayId!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

@InputType('DeliveryFilter')
export class DeliveryFilter {
  @Field(() => ID, { nullable: true })
  partnerId?: string | null;

  @Field(() => ENVIRONMENTS, { nullable: true })
  environment?: Environment | null;

  @Field(() => ID, { nullable: true })
  subscriptionId?: string | null;

  @Field(() => String, { nullable: true })
  eventType?: string | null;

  @Field(() => ID, { nullable: true })
  eventId?: string | null;

  @Field(() => ID, { nullable: true })
  orderId?: string | null;

  @Field(() => String, { nullable: true, description: "The order's external id (the partner's own reference)." })
  externalId?: string | null;

  @Field(() => DELIVERY_OUTCOMES, { nullable: true })
  outcome?: DeliveryOutcome | null;

  @Field(() => STATUS_CLASSES, { nullable: true })
  statusClass?: StatusClass | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created before.' })
  until?: Date | null;
}
