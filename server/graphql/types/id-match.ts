import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
import { ID_KINDS, MATCHED_BY, type IdKind, type MatchedBy } from '@/server/lookup/schemas';
import { ENVIRONMENTS } from './environment';

export const ID_KIND = Object.fromEntries(ID_KINDS.map((k) => [k, k])) as { [K in IdKind]: K };
registerEnumType(ID_KIND, {
  name: 'IdKind',
  description: 'What an id names. credential: by its client id; failed_request: a partner request answered with an error.',
});

export const ID_MATCHED_BY = Object.fromEntries(MATCHED_BY.map((m) => [m, m])) as { [M in MatchedBy]: M };
registerEnumType(ID_MATCHED_BY, { name: 'IdMatchedBy', description: 'Which of the object’s columns held the text.' });

@ObjectType('FailedRequest', { description: 'A partner request answered with an error, kept under its request id.' })
export class FailedRequest {
  @Field(() => String)
  method!: string;

  @Field(() => String, { description: 'As the access log writes it: no query string.' })
  path!: string;

  @Field(() => Int)
  status!: number;

  @Field(() => String, { description: 'The error body’s code.' })
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => Date)
  at!: Date;
}

@ObjectType('IdMatch', { description: 'An object an id names, and where it lives.' })
export class IdMatch {
  @Field(() => ID_KIND)
  kind!: IdKind;

  @Field(() => ID, { description: 'The object’s own id: the order’s for an external id, a quote it used or the request that created it.' })
  id!: string;

  @Field(() => ID_MATCHED_BY)
  matchedBy!: MatchedBy;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => String)
  partnerName!: string;

  @Field(() => ENVIRONMENTS, { nullable: true, description: 'null for a partner.' })
  environment!: Environment | null;

  @Field(() => String, { description: 'A few words on it: an order’s status, an event’s type, a subscription’s URL.' })
  label!: string;

  @Field(() => ID, { nullable: true, description: 'The subscription of a delivery, a replay or a subscription.' })
  subscriptionId!: string | null;

  @Field(() => FailedRequest, { nullable: true })
  failure!: FailedRequest | null;
}
