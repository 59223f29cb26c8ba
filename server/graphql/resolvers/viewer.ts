import { Arg, Args, Authorized, Ctx, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { listSessions } from '@/server/sessions/list';
import { revokeSession } from '@/server/sessions/revoke';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { allowedMutations } from '../permissions';
import { Session, Viewer } from '../types/operator';

@ObjectType('SessionConnection')
class SessionConnection extends connectionOf(Session, 'Session') {}

@Resolver()
export class ViewerResolver {
  @Authorized()
  @Query(() => Viewer, { description: 'The signed-in operator.' })
  me(@Ctx() { ctx, session }: GraphQLContext): Viewer {
    const { operatorId, email, role } = ctx.actor;
    return {
      // A disabled operator has no session, so whoever asks is enabled.
      operator: { id: operatorId, email: email ?? '', role, createdAt: null, disabledAt: null },
      sessionId: session.sessionId,
      sessionExpiresAt: session.expiresAt,
      allowedMutations: allowedMutations(role),
    };
  }

  @Authorized()
  @Query(() => SessionConnection, { description: "Live sessions: your own; an admin sees everyone's, or one operator's." })
  async sessions(
    @Ctx() { ctx, session }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('operatorId', () => ID, { nullable: true }) operatorId?: string,
  ): Promise<SessionConnection> {
    const { first, after } = pageOf(page);
    const { rows } = await listSessions({ ctx, input: { operatorId, currentSessionId: session.sessionId, first: first + 1, after } });
    return toConnection(rows, first, (s) => s.id);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: "Ends a session: your own, or (admin) anyone's. It is refused on its next request." })
  async revokeSession(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await revokeSession({ ctx, input: { sessionId: id } });
    return true;
  }
}
