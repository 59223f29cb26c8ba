import type { Cidr } from '../auth/cidr';
import type { Ctx, Deps, OperatorActor } from '../context';
import type { OperatorSession } from '../sessions/authenticate';

/** Executes one GraphQL request for a signed-in operator (server/graphql, wired by server/boot). */
export type GraphQLExecutor = (request: Request, context: { ctx: Ctx<OperatorActor>; session: OperatorSession }) => Promise<Response>;

/** What the operator API's routes (/api/...) need of their process. */
export interface OperatorServices extends Deps {
  graphql: GraphQLExecutor;
  trustedProxies: Cidr[];
}
