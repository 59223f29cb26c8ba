import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { OpenApiDocument } from '../versions/change';
import { LATEST_VERSION, VERSIONS } from '../versions/registry';
import { openApiDocumentFor } from '../versions/render';
import { versionField } from '../versions/requested';
import { errorEnvelope } from './error-response';
import { BODY_METHODS, type HttpMethod, type RouteSpec } from './route-spec';
import type { RouteEntry } from './routes';

// What every authenticated route can answer besides its own statuses; from the one partner wrapper.
const COMMON_ERRORS: Record<number, string> = {
  400: 'Malformed JSON or an invalid field (`param` names it; `errors` lists every one)',
  401: 'Missing or invalid X-API-Key / X-Client-ID',
  403: "The client address is outside the partner's IP allowlist",
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal error (never leaks internals)',
  503: 'The database is unreachable; retry shortly',
};
const BODY_ERRORS: Record<number, string> = {
  409: 'A request with the same Idempotency-Key is still in progress',
  413: 'Body over 64 KiB',
  415: 'Body is not application/json',
  422: 'Idempotency-Key reused with a different request',
};

const rateLimitHeaders = z.object({
  'X-Request-Id': z.string().meta({ description: 'Unique id of this request; quote it to support' }),
  'X-Service-Version': z.string().meta({ description: 'The version this answer is rendered in' }),
  'RateLimit-Limit': z.string().meta({ description: 'Requests per second allowed for this credential' }),
  'RateLimit-Remaining': z.string().meta({ description: 'Approximate requests left in the current bucket' }),
  'RateLimit-Reset': z.string().meta({ description: 'Seconds until a token is available again' }),
});

/**
 * The OpenAPI document of each version, by version: the latest generated from the routes' zod schemas
 * (never written by hand), an older one from it through the version changes since (server/versions/),
 * each made once, on first ask.
 */
export function openApiDocuments(routes: readonly RouteEntry[]): (version: string) => object {
  const latest = buildOpenApiDocument(routes) as OpenApiDocument;
  const documents = new Map<string, OpenApiDocument>([[LATEST_VERSION, latest]]);
  return (version) => {
    let document = documents.get(version);
    if (!document) documents.set(version, (document = openApiDocumentFor(latest, version)));
    return document;
  };
}

/** The OpenAPI 3.1 document of these routes in the latest version, generated from their zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteEntry[]): object {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  const clientId = registry.registerComponent('securitySchemes', 'ClientId', { type: 'apiKey', in: 'header', name: 'X-Client-ID' });

  for (const route of routes) {
    for (const [method, handler] of Object.entries(route.handlers) as [HttpMethod, { spec: RouteSpec }][]) {
      registry.registerPath(operation(route.path, method, handler.spec, [apiKey.name, clientId.name]));
      if (route.alias) {
        const aliased = {
          ...handler.spec,
          operationId: `${handler.spec.operationId}ViaAlias`,
          description: `Alias of ${method} ${route.path}, as the specification prints it.`,
        };
        registry.registerPath(operation(route.alias, method, aliased, [apiKey.name, clientId.name]));
      }
    }
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Partner Delivery API',
      version: LATEST_VERSION,
      description:
        'Quotes, orders and signed webhooks for delivery partners. Every response carries X-Request-Id; errors share one JSON envelope. ' +
        `Versions are dates (${VERSIONS.join(', ')}; GET /partner/versions): this document describes the one in info.version, ` +
        'and /partner/openapi.json?version=<date> any other. Requests are rendered in the version of X-Service-Version, else the ' +
        "environment's pin; every response names its version in X-Service-Version.",
    },
    servers: [{ url: '/' }],
  });
}

function operation(path: string, method: HttpMethod, spec: RouteSpec, security: string[]): RouteConfig {
  const errors: Record<number, string> = spec.auth
    ? { ...COMMON_ERRORS, ...(BODY_METHODS.has(method) ? BODY_ERRORS : {}) }
    : { 500: COMMON_ERRORS[500]! };
  for (const e of spec.errors ?? []) errors[e.status] = e.description;
  const responses: RouteConfig['responses'] = {
    [spec.response.status]: {
      description: spec.response.description,
      headers: spec.auth ? rateLimitHeaders : undefined,
      ...(spec.response.status === 204 ? {} : { content: { 'application/json': { schema: spec.response.schema } } }),
    },
  };
  if (spec.alternative) {
    responses[spec.alternative.status] = {
      description: spec.alternative.description,
      headers: spec.auth ? rateLimitHeaders : undefined,
      content: { 'application/json': { schema: spec.alternative.schema } },
    };
  }
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = {
      description,
      headers: status === '429' || status === '503' ? z.object({ 'Retry-After': z.string() }) : undefined,
      content: { 'application/json': { schema: errorEnvelope } },
    };
  }
  const versionHeader = {
    'X-Service-Version': versionField.optional().meta({
      description: "The version to render this request in (default: the environment's pin, GET /partner/api-version)",
    }),
  };
  const headerParams = !spec.auth
    ? undefined
    : method === 'POST'
      ? z.object({
          'Idempotency-Key': z
            .string()
            .min(1)
            .max(255)
            .optional()
            .meta({ description: 'Same key and body within 24 h returns the first response again' }),
          ...versionHeader,
        })
      : z.object(versionHeader);
  return {
    method: method.toLowerCase() as RouteConfig['method'],
    path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.auth ? [Object.fromEntries(security.map((s) => [s, []]))] : [],
    request: {
      params: spec.params as RouteConfig['request'] extends { params?: infer P } ? P : never,
      query: spec.query as RouteConfig['request'] extends { query?: infer Q } ? Q : never,
      headers: headerParams,
      body: spec.body ? { required: true, content: { 'application/json': { schema: spec.body } } } : undefined,
    },
    responses,
  };
}
