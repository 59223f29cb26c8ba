import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { AccessListStatus } from '@/server/access/schemas';

export const ACCESS_REQUEST_STATUSES = { new: 'new', approved: 'approved', rejected: 'rejected' } as const satisfies Record<
  AccessListStatus,
  AccessListStatus
>;
registerEnumType(ACCESS_REQUEST_STATUSES, {
  name: 'AccessRequestStatus',
  description: 'new: confirmed by its contact, waiting for a decision. Unconfirmed requests are never shown.',
});

@ObjectType('AccessRequest', { description: 'A request for sandbox access from the public /access page, confirmed by its contact.' })
export class AccessRequest {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  company!: string;

  @Field(() => String)
  contactName!: string;

  @Field(() => String)
  contactEmail!: string;

  @Field(() => String, { nullable: true })
  website!: string | null;

  @Field(() => Int, { nullable: true })
  expectedMonthlyOrders!: number | null;

  @Field(() => String)
  useCase!: string;

  @Field(() => ACCESS_REQUEST_STATUSES)
  status!: AccessListStatus;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  confirmedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'The operator who approved or rejected it.' })
  decidedBy!: string | null;

  @Field(() => Date, { nullable: true })
  decidedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why it was rejected (e-mailed to the contact).' })
  reason!: string | null;

  @Field(() => ID, { nullable: true, description: 'The partner created on approval.' })
  partnerId!: string | null;
}
