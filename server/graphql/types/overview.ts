import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import type { Environment } from '@/server/context';
import { ENVIRONMENTS } from './environment';

@ObjectType('DeliveryMinute', { description: 'Attempts that started in one minute, by outcome.' })
export class DeliveryMinute {
  @Field(() => Date)
  minute!: Date;

  @Field(() => Int)
  succeeded!: number;

  @Field(() => Int)
  failed!: number;
}

@ObjectType('SubscriptionHealth')
export class SubscriptionHealth {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => String)
  url!: string;

  @Field(() => String, { description: 'enabled | disabled' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'gone | too_many_failures | set by the partner or an operator.' })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'First failure since the last success.' })
  failingSince!: Date | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Failures recorded since failingSince, the count the failure notices give; null when not failing.',
  })
  consecutiveFailures!: number | null;
}

@ObjectType('FailedAttempt', { description: 'One failed delivery attempt, with the partner, subscription and event it was for.' })
export class FailedAttempt {
  @Field(() => ID)
  attemptId!: string;

  @Field(() => ID)
  deliveryId!: string;

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

  @Field(() => String)
  partnerName!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => Int, { description: 'The attempt number within its delivery.' })
  number!: number;

  @Field(() => Date)
  startedAt!: Date;

  @Field(() => Int, { nullable: true, description: 'null: no HTTP answer (timeout, connection, TLS...).' })
  responseStatus!: number | null;

  @Field(() => String, { description: 'timeout | connection | tls | dns | blocked_address | http_status | internal.' })
  errorKind!: string;

  @Field(() => String, { nullable: true })
  errorMessage!: string | null;
}

@ObjectType('Overview', { description: 'What the console shows first: throughput, backlog, and endpoints in trouble.' })
export class Overview {
  @Field(() => Int)
  windowMinutes!: number;

  @Field(() => Date, {
    description: "The window's start: the whole minute at or before now minus the window (the rollup counts whole minutes).",
  })
  since!: Date;

  @Field(() => [DeliveryMinute], { description: 'Minutes with attempts, oldest first.' })
  perMinute!: DeliveryMinute[];

  @Field(() => Int)
  attempts!: number;

  @Field(() => Float, { nullable: true, description: 'Succeeded attempts / attempts in the window, 0 to 1; null without attempts.' })
  successRate!: number | null;

  @Field(() => Int, { description: 'Deliveries pending: on their way, due, or waiting for a retry; counted up to backlogCountLimit.' })
  pendingDeliveries!: number;

  @Field(() => Int, { description: 'Pending deliveries due now (not waiting for a retry time); counted up to backlogCountLimit.' })
  dueDeliveries!: number;

  @Field(() => Int, { description: 'Where the backlog counts stop: a count equal to it means at least that many.' })
  backlogCountLimit!: number;

  @Field(() => Int, { nullable: true, description: 'Seconds the oldest due delivery has waited; null when none is due.' })
  oldestWaitingSeconds!: number | null;

  @Field(() => [SubscriptionHealth], { description: 'Enabled subscriptions whose attempts fail, longest failing first (at most 100).' })
  failingSubscriptions!: SubscriptionHealth[];

  @Field(() => [SubscriptionHealth], { description: 'Disabled subscriptions, most recently changed first (at most 100).' })
  disabledSubscriptions!: SubscriptionHealth[];
}
