import type { AuthChecker } from 'type-graphql';
import type { OperatorRole } from '@/server/context';
import type { GraphQLContext } from './context';

/**
 * `@Authorized()` needs a session (every operation has one: the route refuses without); `@Authorized('admin')`
 * needs that role. admin may do everything; support reads, redelivers, replays and enables or disables
 * subscriptions, and nothing that touches credentials, allowlists, go-live, rate limits or operators.
 */
export const authChecker: AuthChecker<GraphQLContext, OperatorRole> = ({ context }, roles) =>
  roles.length === 0 || context.ctx.actor.role === 'admin' || roles.includes(context.ctx.actor.role);
