import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { Environment } from '@/server/context';
import type { EventRow, EventSummary } from '@/server/events/search';
import { connectionOf } from '../connection';
import { ENVIRONMENTS } from './environment';

@ObjectType('Event', { description: 'Something that happened to a partner resource, as every delivery of it sends it.' })
export class Event {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  type!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => ID, { description: 'The resource it is about (an order, a subscription).' })
  objectId!: string;

  @Field(() => Date)
  createdAt!: Date;

  /** The envelope as JSON text when the row was read with it (`envelope` is a field resolver: an order's timeline reads none). */
  envelopeText?: string;
}

@ObjectType('EventConnection')
export class EventConnection extends connectionOf(Event, 'Event') {}

@InputType('EventFilter')
export class EventFilter {
  @Field(() => ID, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  type?: string | null;

  @Field(() => ID, { nullable: true })
  orderId?: string | null;

  @Field(() => ID, { nullable: true })
  partnerId?: string | null;

  @Field(() => ENVIRONMENTS, { nullable: true })
  environment?: Environment | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created before.' })
  until?: Date | null;
}

@ObjectType('Redelivery', {
  description: 'An event sent again: the subscriptions it went to (a delivery still pending is left to finish).',
})
export class Redelivery {
  @Field(() => ID)
  eventId!: string;

  @Field(() => [ID])
  webhookIds!: string[];
}

export function toEvent(row: EventRow | EventSummary): Event {
  const { envelope, ...event } = row as EventRow;
  return envelope ? { ...event, envelopeText: JSON.stringify(envelope) } : event;
}
