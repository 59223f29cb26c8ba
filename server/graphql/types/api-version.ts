import { Field, ObjectType } from 'type-graphql';

@ObjectType('ApiVersionChange', { description: 'One change a version made, as the changelog reads it.' })
export class ApiVersionChange {
  @Field(() => String)
  name!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String)
  migration!: string;
}

@ObjectType('ApiVersion', { description: 'A version of the partner API (a date), from GET /partner/versions.' })
export class ApiVersion {
  @Field(() => String, { description: 'YYYY-MM-DD.' })
  id!: string;

  @Field(() => Boolean)
  latest!: boolean;

  @Field(() => [ApiVersionChange])
  changes!: ApiVersionChange[];
}
