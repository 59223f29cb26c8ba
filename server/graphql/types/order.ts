import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
import { ORDER_STATUSES, type OrderStatus } from '@/server/orders/state-machine';
import { ENVIRONMENTS } from './environment';

export const ORDER_STATUS = Object.fromEntries(ORDER_STATUSES.map((s) => [s, s])) as { [S in OrderStatus]: S };
registerEnumType(ORDER_STATUS, { name: 'OrderStatus' });

@ObjectType('OrderStatusChange')
export class OrderStatusChange {
  @Field(() => ORDER_STATUS)
  status!: OrderStatus;

  @Field(() => Date)
  at!: Date;
}

@ObjectType('Order')
export class Order {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => ORDER_STATUS)
  status!: OrderStatus;

  @Field(() => String, { nullable: true, description: "The partner's own reference." })
  externalId!: string | null;

  @Field(() => Int, { description: 'In the smallest unit of feeCurrency.' })
  feeAmount!: number;

  @Field(() => String)
  feeCurrency!: string;

  @Field(() => [OrderStatusChange], {
    description: 'Oldest first: at most the latest 100 (an order keeps no more, the last for ending it).',
  })
  statusHistory!: OrderStatusChange[];

  @Field(() => Int, {
    nullable: true,
    description: 'While a sandbox scenario still moves the order by itself: the seconds between its steps. null otherwise.',
  })
  scenarioStepSeconds!: number | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@InputType('OrderFilter')
export class OrderFilter {
  @Field(() => ID, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  externalId?: string | null;

  @Field(() => ID, { nullable: true })
  partnerId?: string | null;

  @Field(() => ENVIRONMENTS, { nullable: true })
  environment?: Environment | null;

  @Field(() => ORDER_STATUS, { nullable: true })
  status?: OrderStatus | null;
}
