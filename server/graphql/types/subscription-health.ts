import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { StatusClass } from '@/server/webhooks/search-deliveries';
import { STATUS_CLASSES } from './delivery';
import { WebhookSubscription } from './partner';

@ObjectType('SubscriptionHealthBucket', { description: 'Attempts that started in one interval of the window.' })
export class SubscriptionHealthBucket {
  @Field(() => Date, {
    description: 'The interval starts here (a whole minute; a whole hour in a window of 48 hours or more) and lasts bucketMinutes.',
  })
  start!: Date;

  @Field(() => Int)
  attempts!: number;

  @Field(() => Int)
  succeeded!: number;

  @Field(() => Int, {
    nullable: true,
    description: "Median attempt duration, read from the rollup's duration bins (spaced by 2^(1/8)): within 4.4 % of the exact median.",
  })
  p50DurationMs!: number | null;

  @Field(() => Int, { nullable: true, description: '95th percentile of the attempt durations, within 4.4 % as p50DurationMs.' })
  p95DurationMs!: number | null;
}

@ObjectType('StatusClassCount', { description: 'Attempts whose response fell in one status class (NONE: no HTTP answer).' })
export class StatusClassCount {
  @Field(() => STATUS_CLASSES)
  statusClass!: StatusClass;

  @Field(() => Int)
  attempts!: number;
}

@ObjectType('SubscriptionHealthReport', {
  description: "One subscription's attempts over a window: success and latency per interval, status classes, failure streak, backlog.",
})
export class SubscriptionHealthReport {
  @Field(() => WebhookSubscription)
  subscription!: WebhookSubscription;

  @Field(() => Int)
  windowHours!: number;

  @Field(() => Date, {
    description: "The window's start: the whole minute at or before now minus the window (the rollup counts whole minutes).",
  })
  since!: Date;

  @Field(() => Int, { description: 'The length of each bucket (about 48 per window; whole hours from a 48-hour window on).' })
  bucketMinutes!: number;

  @Field(() => [SubscriptionHealthBucket], { description: 'Intervals with attempts, oldest first.' })
  buckets!: SubscriptionHealthBucket[];

  @Field(() => Int)
  attempts!: number;

  @Field(() => Int)
  succeeded!: number;

  @Field(() => Float, { nullable: true, description: 'succeeded / attempts over the window; null without attempts.' })
  successRate!: number | null;

  @Field(() => [StatusClassCount], { description: 'Attempts in the window by response status class.' })
  statusClasses!: StatusClassCount[];

  @Field(() => Int, {
    nullable: true,
    description: 'Failures recorded since failingSince, the count the failure notices give; null when not failing.',
  })
  consecutiveFailures!: number | null;

  @Field(() => Int, { description: 'Deliveries pending: on their way, due, or waiting for a retry; counted up to backlogCountLimit.' })
  pendingDeliveries!: number;

  @Field(() => Int, { description: 'Pending deliveries due now (not waiting for a retry time); counted up to backlogCountLimit.' })
  dueDeliveries!: number;

  @Field(() => Int, { description: 'Where the backlog counts stop: a count equal to it means at least that many.' })
  backlogCountLimit!: number;

  @Field(() => Date, { nullable: true, description: 'When the oldest pending delivery was made; null when none is pending.' })
  oldestPendingAt!: Date | null;
}
