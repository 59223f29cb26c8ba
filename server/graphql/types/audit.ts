import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType } from 'type-graphql';

@ObjectType('AuditEntry', { description: 'One operator (or system) action: who, what, when, and the changed fields before and after.' })
export class AuditEntry {
  @Field(() => ID)
  id!: string;

  @Field(() => Date)
  at!: Date;

  @Field(() => String, { description: 'As recorded: "operator:<id>", "operator:cli" (the admin CLI), "system:<name>".' })
  actor!: string;

  @Field(() => String, { nullable: true, description: 'The e-mail of the operator who acted, when the actor is an operator.' })
  actorEmail!: string | null;

  @Field(() => String, { description: 'operator.create, credential.issue, webhook.update...' })
  action!: string;

  @Field(() => String)
  targetType!: string;

  @Field(() => String)
  targetId!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The changed fields before the action; secrets read "[masked]".' })
  before!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The changed fields after the action; secrets read "[masked]".' })
  after!: unknown;
}

@InputType('AuditFilter', { description: 'Every given field must match.' })
export class AuditFilter {
  @Field(() => String, { nullable: true, description: 'An operator id or e-mail, or a raw actor ("operator:cli", "system:demo-seed").' })
  actor?: string | null;

  @Field(() => String, { nullable: true })
  action?: string | null;

  @Field(() => String, { nullable: true })
  targetType?: string | null;

  @Field(() => String, { nullable: true })
  targetId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Entries at or after this moment.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Entries before this moment.' })
  until?: Date | null;
}
