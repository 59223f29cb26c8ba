import { contextFor, type Ctx, type OperatorActor } from '../context';
import { AppError } from '../errors';
import { authenticateSession, type OperatorSession } from '../sessions/authenticate';
import { clientAddressOf } from './authenticate';
import type { OperatorServices } from './operator-services';
import { serveWebRequest } from './serve-request';
import type { RouteContext, WebHandler } from './route-spec';
import { sessionTokenFrom } from './session-cookie';

export type OperatorHandler = WebHandler<OperatorServices> & { operatorRoute: true };

export function isOperatorHandler(value: unknown): value is OperatorHandler {
  return typeof value === 'function' && 'operatorRoute' in value;
}

interface Args {
  request: Request;
  services: OperatorServices;
  requestId: string;
  /** The caller's address (the socket's, or the trusted proxy's X-Forwarded-For). */
  address: string;
  /** The path's [segments] (app/api/handover/[token] → { token }). */
  params: Record<string, string | string[] | undefined>;
}

type Definition =
  | { session: 'required'; handler(args: Args & { ctx: Ctx<OperatorActor>; session: OperatorSession }): Promise<Response> }
  | { session: 'none'; handler(args: Args & { ctx: Ctx }): Promise<Response> };

export class SignInRequiredError extends AppError {
  constructor() {
    super('unauthenticated', 'unauthenticated', 'Sign in first: this needs an operator session (POST /api/session).');
  }
}

/**
 * The wrapper of every operator API route (/api/...): the session cookie (401 without a live one) and
 * the operator's ctx, inside the step every route shares (serve-request.ts: request id, error mapping,
 * one log line). Served by the front door like the partner routes; Next never sees these paths.
 */
export function operatorRoute(def: Definition): OperatorHandler {
  const handle = async (request: Request, context: RouteContext<OperatorServices>): Promise<Response> => {
    const services = context.services;
    if (!services) throw new Error('operator routes are served by the front door (server/http/front-door.ts), not through Next');
    const address = clientAddressOf(request, services.trustedProxies);
    return serveWebRequest(request, services.log, 'operator request', async (record) => {
      const { requestId } = record;
      const params = await context.params;
      if (def.session === 'none') {
        const ctx = contextFor(services, { kind: 'system', name: 'operator-api' }, requestId);
        return def.handler({ request, services, requestId, address, params, ctx });
      }
      const token = sessionTokenFrom(request);
      const session = token ? await authenticateSession(services, token) : undefined;
      if (!session) throw new SignInRequiredError();
      record.fields.operator_id = session.actor.operatorId;
      const ctx = contextFor(services, session.actor, requestId);
      return def.handler({ request, services, requestId, address, params, ctx, session });
    });
  };
  return Object.assign(handle, { operatorRoute: true as const });
}
