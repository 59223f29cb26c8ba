import { Arg, Args, Authorized, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { OperatorRole } from '@/server/context';
import { changeOperatorRole } from '@/server/operators/change-role';
import { createOperator } from '@/server/operators/create';
import { listOperators } from '@/server/operators/list';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { Operator, ROLES } from '../types/operator';

@ObjectType('OperatorConnection')
class OperatorConnection extends connectionOf(Operator, 'Operator') {}

@ObjectType('CreateOperatorResult')
class CreateOperatorResult {
  @Field(() => Operator)
  operator!: Operator;

  @Field(() => String, {
    nullable: true,
    description: 'Set only when no password was given: the generated one, shown this once (only its hash is stored).',
  })
  generatedPassword!: string | null;
}

@Resolver()
export class OperatorsResolver {
  @Authorized()
  @Query(() => OperatorConnection, { description: 'Console operators, newest first.' })
  async operators(@Ctx() { ctx }: GraphQLContext, @Args(() => PageArgs) page: PageArgs): Promise<OperatorConnection> {
    const { first, after } = pageOf(page);
    const rows = await listOperators({ ctx, input: { first, after } });
    return toConnection(rows, first, (o) => o.id);
  }

  @Authorized('admin')
  @Mutation(() => CreateOperatorResult, { description: 'Adds a console operator. Without a password, one is generated and returned once.' })
  async createOperator(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('email', () => String) email: string,
    @Arg('role', () => ROLES) role: OperatorRole,
    @Arg('password', () => String, { nullable: true }) password?: string | null,
  ): Promise<CreateOperatorResult> {
    const { generatedPassword, ...operator } = await createOperator({ ctx, input: { email, role, password: password ?? undefined } });
    return { operator, generatedPassword: generatedPassword ?? null };
  }

  @Authorized('admin')
  @Mutation(() => Operator, {
    description: 'Gives an operator another role, from their next request. Refused (last_admin) when it would leave no admin.',
  })
  async changeOperatorRole(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('id', () => ID) id: string,
    @Arg('role', () => ROLES) role: OperatorRole,
  ): Promise<Operator> {
    const { changed: _changed, ...operator } = await changeOperatorRole({ ctx, input: { id, role } });
    return operator;
  }
}
