import { z } from 'zod';
import { contextFor, type Ctx, type SystemActor } from '../context';
import { parseOrThrow } from '../validation';
import { LATEST_VERSION } from '../versions/registry';
import { parseVersion, versionField } from '../versions/requested';
import { clientAddressOf } from './authenticate';
import { readJsonBody } from './body';
import { jsonAnswer } from './exchange';
import { serveRequest } from './serve-request';
import { specifiedHandler, type RouteSpec, type ServeExchange, type SpecifiedHandler } from './route-spec';
import type { PartnerServices } from './services';

interface Definition<R> extends Pick<RouteSpec, 'operationId' | 'summary' | 'description' | 'tag'> {
  response?: { schema: z.ZodType; description: string };
  /** `version`: the one `?version=` names, the latest by default. */
  handler(args: { services: PartnerServices; version: string }): Promise<R> | R;
}

// A public route is rendered in the version its query names (the OpenAPI document of that version).
const versionQuery = z.object({
  version: versionField.optional().meta({ description: 'The version to describe (GET /partner/versions); default the latest' }),
});

const jsonObject = z.record(z.string(), z.unknown());

/** A partner-facing route that needs no credentials (the OpenAPI document). */
export function publicRoute<R>(def: Definition<R>): SpecifiedHandler {
  const { handler, response, ...spec } = def;
  const serve: ServeExchange = async (exchange, _params, services) => {
    let version = LATEST_VERSION;
    const answered = await serveRequest(exchange, services.log, 'public request', async (record) => {
      // A document fetched by every generator and browser: not worth a log line each.
      record.log = false;
      const query = exchange.target.indexOf('?');
      const asked = query < 0 ? null : new URLSearchParams(exchange.target.slice(query + 1)).get('version');
      if (asked !== null) version = parseVersion(asked, 'version');
      return jsonAnswer(200, await handler({ services, version }), { 'cache-control': 'public, max-age=300' });
    });
    answered.headers['x-service-version'] = version;
    return answered;
  };
  const routeSpec: RouteSpec = {
    ...spec,
    query: versionQuery,
    auth: false,
    response: { status: 200, schema: response?.schema ?? jsonObject, description: response?.description ?? 'OK' },
  };
  return specifiedHandler(routeSpec, serve);
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
  const serve: ServeExchange = (exchange, _params, services) =>
    serveRequest(exchange, services.log, 'public request', async (record) => {
      const read = await readJsonBody(exchange, services.env.REQUEST_BODY_TIMEOUT_MS);
      const body = parseOrThrow(def.body, read === undefined ? {} : read.value);
      const ctx = contextFor(services, { kind: 'system', name: 'public' } as SystemActor, record.requestId);
      const address = clientAddressOf(exchange, services.trustedProxies);
      return jsonAnswer(def.response.status, await handler({ ctx, body, address }));
    });
  return specifiedHandler({ ...spec, auth: false } as RouteSpec, serve);
}
