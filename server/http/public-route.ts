import { newRequestId } from '../ids';
import { z } from 'zod';
import { contextFor, type Ctx, type SystemActor } from '../context';
import { parseOrThrow } from '../validation';
import { clientAddressOf } from './authenticate';
import { readJsonBody } from './body';
import { errorResponse } from './error-response';
import { loggedPath } from './logged-path';
import { jsonResponse } from './json';
import { servicesOf, type RouteContext, type RouteSpec, type SpecifiedHandler } from './route-spec';
import type { PartnerServices } from './services';

interface Definition<R> extends Pick<RouteSpec, 'operationId' | 'summary' | 'description' | 'tag'> {
  response?: { schema: z.ZodType; description: string };
  handler(args: { services: PartnerServices }): Promise<R> | R;
}

const jsonObject = z.record(z.string(), z.unknown());

/** A partner-facing route that needs no credentials (the OpenAPI document). */
export function publicRoute<R>(def: Definition<R>): SpecifiedHandler {
  const { handler, response, ...spec } = def;
  const handle = async (_request: Request, context: RouteContext): Promise<Response> => {
    const requestId = newRequestId();
    const services = servicesOf(context);
    try {
      return jsonResponse(200, await handler({ services }), { 'x-request-id': requestId, 'cache-control': 'public, max-age=300' });
    } catch (error) {
      return errorResponse(error, requestId, services.log, { 'x-request-id': requestId });
    }
  };
  const routeSpec: RouteSpec = {
    ...spec,
    auth: false,
    response: { status: 200, schema: response?.schema ?? jsonObject, description: response?.description ?? 'OK' },
  };
  return Object.assign(handle, { spec: routeSpec });
}

interface PostDefinition<B extends z.ZodType, R extends z.ZodType> extends Omit<
  RouteSpec,
  'auth' | 'body' | 'query' | 'params' | 'response'
> {
  body: B;
  response: { status: 200 | 201 | 202; schema: R; description: string };
  /** ctx acts as the system actor `public`; address is the client's (through trusted proxies only). */
  handler(args: { ctx: Ctx<SystemActor>; body: z.infer<B>; address: string }): Promise<z.input<R>>;
}

/**
 * A JSON POST anyone may make (asking for access): the partner wrapper's body limit (413), media type
 * (415) and validation (400 naming the field) without credentials. Limits on how often are the verb's:
 * it knows what it counts.
 */
export function publicPostRoute<B extends z.ZodType, R extends z.ZodType>(def: PostDefinition<B, R>): SpecifiedHandler {
  const { handler, ...spec } = def;
  const handle = async (request: Request, context: RouteContext): Promise<Response> => {
    const requestId = newRequestId();
    const started = performance.now();
    const services = servicesOf(context);
    let response: Response;
    try {
      const read = await readJsonBody(request, services.env.REQUEST_BODY_TIMEOUT_MS);
      const body = parseOrThrow(def.body, read === undefined ? {} : read.value);
      const ctx = contextFor(services, { kind: 'system', name: 'public' } as SystemActor, requestId);
      const address = clientAddressOf(request, services.trustedProxies);
      response = jsonResponse(def.response.status, await handler({ ctx, body, address }));
    } catch (error) {
      response = errorResponse(error, requestId, services.log);
    }
    response.headers.set('x-request-id', requestId);
    services.log.info(
      {
        request_id: requestId,
        method: request.method,
        path: loggedPath(request.url),
        status: response.status,
        ms: Math.round(performance.now() - started),
      },
      'public request',
    );
    return response;
  };
  return Object.assign(handle, { spec: { ...spec, auth: false } as RouteSpec });
}
