import { newRequestId } from '../ids';
import { z } from 'zod';
import { errorResponse } from './error-response';
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
