import { Arg, Args, Authorized, Ctx, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { OperatorRole } from '@/server/context';
import { changeOperatorRole } from '@/server/operators/change-role';
import { changeOwnPassword } from '@/server/operators/change-password';
import { createOperator } from '@/server/operators/create';
import { disableOperator } from '@/server/operators/disable';
import { enableOperator } from '@/server/operators/enable';
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

@ObjectType('ChangePasswordResult')
class ChangePasswordResult {
  @Field(() => Int, { description: 'Your other sessions that were ended (this one stays).' })
  sessionsEnded!: number;
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
    return { operator: { ...operator, disabledAt: null }, generatedPassword: generatedPassword ?? null };
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

  @Authorized('admin')
  @Mutation(() => Operator, {
    description:
      'Disables an operator: every session of theirs ends at once and sign-in is refused (the same 401 as a wrong password); ' +
      'the audit log keeps their entries. Refused (last_admin) when no active admin would remain.',
  })
  async disableOperator(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Operator> {
    const { changed: _changed, sessionsEnded: _ended, ...operator } = await disableOperator({ ctx, input: { id } });
    return operator;
  }

  @Authorized('admin')
  @Mutation(() => Operator, { description: 'Lets a disabled operator sign in again, with the password they had.' })
  async enableOperator(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Operator> {
    const { changed: _changed, ...operator } = await enableOperator({ ctx, input: { id } });
    return operator;
  }

  @Authorized()
  @Mutation(() => ChangePasswordResult, {
    description:
      'Changes your own password (at least 12 characters); the current one is required, and a wrong one counts as a failed ' +
      'sign-in. Your other sessions end; this one stays.',
  })
  async changePassword(
    @Ctx() { ctx, session }: GraphQLContext,
    @Arg('currentPassword', () => String) currentPassword: string,
    @Arg('newPassword', () => String) newPassword: string,
  ): Promise<ChangePasswordResult> {
    return changeOwnPassword({ ctx, input: { currentPassword, newPassword, sessionId: session.sessionId } });
  }
}
