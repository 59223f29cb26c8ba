import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { OperatorRole } from '@/server/context';

export const ROLES = { admin: 'admin', support: 'support' } as const satisfies Record<OperatorRole, OperatorRole>;
registerEnumType(ROLES, {
  name: 'Role',
  description: 'admin does everything; support reads, redelivers, replays and enables or disables subscriptions.',
});

@ObjectType('Operator')
export class Operator {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  email!: string;

  @Field(() => ROLES)
  role!: OperatorRole;

  @Field(() => Date, { nullable: true })
  createdAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Set while the operator is disabled: no sign-in, no session.' })
  disabledAt!: Date | null;
}

@ObjectType('Session', { description: 'A signed-in session. Its token is never shown: it lives only in the cookie.' })
export class Session {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  operatorId!: string;

  @Field(() => String)
  operatorEmail!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  lastSeenAt!: Date;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => String, { nullable: true })
  address!: string | null;

  @Field(() => String, { nullable: true })
  userAgent!: string | null;

  @Field(() => Boolean, { description: 'The session this request was made with.' })
  current!: boolean;
}

@ObjectType('Viewer', { description: 'Who is signed in, and what their role allows (the console hides what it does not).' })
export class Viewer {
  @Field(() => Operator)
  operator!: Operator;

  @Field(() => ID)
  sessionId!: string;

  @Field(() => Date)
  sessionExpiresAt!: Date;

  @Field(() => [String], { description: 'The mutations this role may call.' })
  allowedMutations!: string[];
}
