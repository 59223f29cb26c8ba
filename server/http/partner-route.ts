import type { z } from 'zod';
import { contextFor, primaryReads, type Ctx, type PartnerActor, type TenantCtx } from '../context';
import { AuthenticationError, DatabaseUnavailableError, NotFoundError, RateLimitedError } from '../errors';
import { requestFingerprint, validateIdempotencyKey } from '../idempotency/store';
import type { RateDecision } from '../rate-limit/limiter';
import { recordFailedRequest } from '../request-failures/record';
import { isStorableText, parseOrThrow, storableQuery } from '../validation';
import { pinEnvironment } from '../pins/pin';
import { isKnownVersion, LATEST_VERSION } from '../versions/registry';
import { renderResponse, upgradeRequest } from '../versions/render';
import { parseVersion } from '../versions/requested';
import type { VerifiedCredential } from '../auth/credential-cache';
import { authenticate, AuthThrottledError, clientAddressOf, enforceAllowlist } from './authenticate';
import { readJsonBody } from './body';
import { runIdempotently } from './idempotent';
import { jsonResponse } from './json';
import { loggedPath } from './logged-path';
import { serveRequest } from './serve-request';
import { BODY_METHODS, servicesOf, type RouteContext, type RouteSpec, type SpecifiedHandler } from './route-spec';
import type { PartnerServices } from './services';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

interface Definition<B, Q, P, R extends z.ZodType> extends Omit<RouteSpec, 'auth' | 'body' | 'query' | 'params' | 'response'> {
  body?: B;
  query?: Q;
  params?: P;
  response: { status: 200 | 201 | 202 | 204; schema: R; description: string };
  /** `body` and the answer are in the latest version; `version` is the one the request is rendered in. */
  handler(args: {
    ctx: TenantCtx;
    body: Infer<B>;
    query: Infer<Q>;
    params: Infer<P>;
    request: Request;
    version: string;
  }): Promise<z.input<R> | Alternative>;
}

const ALTERNATIVE = Symbol('alternative answer');
interface Alternative {
  [ALTERNATIVE]: unknown;
}

/** A handler's answer in the route's `alternative` shape and status instead of its `response`. */
export function alternative(body: unknown): Alternative {
  return { [ALTERNATIVE]: body };
}

/** The handler's answer, in the latest version, rendered in the request's and saying which (stored with it by idempotency). */
function answer(
  def: { response: RouteSpec['response']; alternative?: RouteSpec['alternative'] },
  result: unknown,
  version: string,
): Response {
  const headers = { [VERSION_HEADER]: version };
  if (def.alternative && typeof result === 'object' && result !== null && ALTERNATIVE in result) {
    return jsonResponse(def.alternative.status, renderResponse((result as Alternative)[ALTERNATIVE], version), headers);
  }
  return jsonResponse(def.response.status, renderResponse(result, version), headers);
}

const VERSION_HEADER = 'x-service-version';

/**
 * The environment's pin, pinned now when this is its first request (server/pins/pin.ts). The pin rides on
 * the cached credential, so only that first request costs a query.
 */
async function pinOf(credential: VerifiedCredential, ctx: TenantCtx): Promise<string> {
  return credential.apiVersion ?? (credential.apiVersion = await pinEnvironment({ ctx }));
}

/** What renders an answer that came before the request's version was known (a 401, 403 or 429): the header's, when it names one, else the latest. */
function fallbackVersion(request: Request): string {
  const header = request.headers.get(VERSION_HEADER)?.trim();
  return header && isKnownVersion(header) ? header : LATEST_VERSION;
}

/**
 * The one wrapper every partner route goes through. In order: request id, authentication (401),
 * IP allowlist (403), rate limit (429), body (413/415/400), validation (400), idempotency, the
 * domain verb, and error mapping. Route files stay a few lines long.
 */
export function partnerRoute<
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  P extends z.ZodType | undefined,
  R extends z.ZodType,
>(def: Definition<B, Q, P, R>): SpecifiedHandler {
  const { handler, ...spec } = def;
  const routeSpec: RouteSpec = { ...spec, auth: true } as RouteSpec;

  const handle = async (request: Request, context: RouteContext): Promise<Response> => {
    const services = servicesOf(context);
    const headers: Record<string, string> = {};
    let tenant: { partnerId: string; environment: 'sandbox' | 'production' } | undefined;
    let version: string | undefined;
    let authFailed = false;
    // Set once the request passed authentication, the allowlist and the rate limit: from there on a failure is kept.
    let admitted: Ctx<PartnerActor> | undefined;
    // Resolved only when needed: a known key never asks for it.
    let address: string | undefined;
    const addressOf = () => (address ??= clientAddressOf(request, services.trustedProxies));
    const response = await serveRequest(
      request,
      services.log,
      'partner request',
      (record) =>
        withDeadline(services, async (outsideDeadline) => {
          const credential = await authenticate(request, services, addressOf).catch((error: unknown) => {
            authFailed = error instanceof AuthenticationError || error instanceof AuthThrottledError;
            throw error;
          });
          record.fields.client_id = credential.clientId;
          tenant = credential;
          enforceAllowlist(request, credential, services.trustedProxies);
          const decision = await services.rateLimiter.take(credential.clientId, credential.ratePerSecond, credential.burst);
          Object.assign(headers, rateLimitHeaders(decision));
          if (!decision.allowed) throw new RateLimitedError(decision.resetSeconds, {});

          // A request that writes reads the primary throughout: its answer shows what it did (Deps.read).
          const readOnly = request.method === 'GET' || request.method === 'HEAD';
          const partnerCtx: Ctx<PartnerActor> = contextFor(
            services,
            {
              kind: 'partner',
              partnerId: credential.partnerId,
              environment: credential.environment,
              credentialId: credential.credentialId,
              clientId: credential.clientId,
            },
            record.requestId,
          );
          const ctx = readOnly ? partnerCtx : primaryReads(partnerCtx);
          admitted = ctx;
          // The request's X-Service-Version, else the pin; an unknown or malformed header is a 400 rendered in the pin.
          version = await pinOf(credential, ctx);
          const requested = request.headers.get(VERSION_HEADER);
          if (requested !== null) version = parseVersion(requested.trim(), 'X-Service-Version');
          const hasBody = BODY_METHODS.has(request.method);
          const body = hasBody ? await outsideDeadline(() => readJsonBody(request, services.env.REQUEST_BODY_TIMEOUT_MS)) : undefined;
          const url = new URL(request.url);
          // Every 400 is decided here, before an Idempotency-Key is claimed: a request that never
          // started executing stores nothing, so the client can correct it and retry with the same key.
          const args = {
            ctx,
            request,
            // An absent body reads as {}; a JSON `null` is a body, and not an object.
            // Sent in the request's version, validated in the latest: the body goes up through the changes since.
            body: (def.body
              ? parseOrThrow(def.body, upgradeRequest(spec.operationId, body === undefined ? {} : body.value, version))
              : undefined) as Infer<B>,
            query: (def.query ? parseOrThrow(def.query, storableQuery(url.searchParams)) : undefined) as Infer<Q>,
            params: (def.params ? parsePathParams(def.params, await context.params) : undefined) as Infer<P>,
            version,
          };
          const idempotencyKey = request.method === 'POST' ? request.headers.get('idempotency-key') : null;
          if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
          const run = async (on: TenantCtx): Promise<Response> => answer(def, await handler({ ...args, ctx: on }), args.version);
          if (idempotencyKey === null) return run(ctx);
          const fingerprint = requestFingerprint(request.method, url.pathname, body?.raw ?? '');
          return runIdempotently({ services, ctx, key: idempotencyKey, fingerprint, execute: run });
        }),
      (response, record) => {
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        // Errors too: every answer names the version that rendered it (an idempotent replay, the one it was first rendered in).
        if (!response.headers.has(VERSION_HEADER)) response.headers.set(VERSION_HEADER, version ?? fallbackVersion(request));
        // A map bump: the go-live checklist's counts reach the database in batches (server/onboarding/request-counts.ts).
        if (tenant) {
          services.requestCounts.count(tenant.partnerId, tenant.environment, response.status, response.headers.has('idempotent-replayed'));
        }
        // Failed authentications are counted per address, and logged once per address and window with
        // the count of those left out: a flood of wrong keys is not a flood of log lines.
        const sampled = authFailed ? services.authFailures.fail(addressOf()) : undefined;
        if (sampled) {
          record.log = sampled.log;
          Object.assign(record.fields, { client_address: addressOf(), failures_not_logged: sampled.suppressed });
        }
      },
    );
    return admitted && keptFailure(response) ? keepFailure(admitted, request, response) : response;
  };
  return Object.assign(handle, { spec: routeSpec });
}

/** The longest a failed answer waits for its record (keepFailure). */
const RECORD_WAIT_MS = 250;

/**
 * Which failed answers are kept under their request id (server/request-failures/): every 4xx and 500 of a
 * request that was admitted. Not a 429 (refused before it was admitted), not a 503 (the database those rows
 * go to is what failed, or was too slow), not an idempotent replay (its first answer was kept).
 */
function keptFailure(response: Response): boolean {
  const { status } = response;
  return status >= 400 && status !== 503 && !response.headers.has('idempotent-replayed');
}

/**
 * Keeps the failure, and answers a fresh Response with the same status, headers and text: a body can be
 * read once, and reading it (or a clone) rebuilds @hono/node-server's Response from its constructor's
 * headers, losing those set since (X-Request-Id, the rate-limit headers).
 */
async function keepFailure(ctx: Ctx<PartnerActor>, request: Request, response: Response): Promise<Response> {
  const { status } = response;
  const headers = new Headers(response.headers);
  const text = await response.text();
  let error: { code?: unknown; message?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  const recorded = recordFailedRequest({
    ctx,
    input: {
      method: request.method,
      path: loggedPath(request.url),
      status,
      code: typeof error?.code === 'string' ? error.code : 'unknown',
      message: typeof error?.message === 'string' ? error.message : '',
    },
  });
  // Recorded before the answer, so the id names it at once; a database that stopped answering (a key still in
  // the credential cache, a 400 that needed no query) delays the answer by this much at most, and the record
  // lands late or not at all.
  await Promise.race([recorded, new Promise((resolve) => setTimeout(resolve, RECORD_WAIT_MS).unref())]);
  return new Response(text, { status, headers });
}

/**
 * A path segment that cannot be an id (too long, a NUL, a lone surrogate, 2 KiB of junk) names
 * nothing: 404, as for an unknown id, not a 400 about a parameter the caller never named. The id
 * is echoed only when it is short and printable.
 */
function parsePathParams<S extends z.ZodType>(schema: S, raw: Record<string, string | string[] | undefined>): z.infer<S> {
  const storable = Object.values(raw).every((v) => typeof v !== 'string' || isStorableText(v));
  const result = storable ? schema.safeParse(raw) : undefined;
  if (result?.success) return result.data;
  const id = typeof raw.id === 'string' ? raw.id : undefined;
  throw new NotFoundError('object', id !== undefined && id.length <= 64 && !/\p{C}/u.test(id) ? id : undefined);
}

function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return { 'ratelimit-limit': String(d.limit), 'ratelimit-remaining': String(d.remaining), 'ratelimit-reset': String(d.resetSeconds) };
}

type OutsideDeadline = <U>(work: () => Promise<U>) => Promise<U>;

/**
 * A request never hangs on a database that stopped answering: past REQUEST_TIMEOUT_MS it is a 503.
 * Work passed to `outsideDeadline` (receiving the body, the client's time) stops the clock meanwhile.
 */
async function withDeadline<T>(services: PartnerServices, fn: (outsideDeadline: OutsideDeadline) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let remaining = services.env.REQUEST_TIMEOUT_MS;
  let armedAt = 0;
  let expire: (error: Error) => void = () => {};
  const deadline = new Promise<never>((_, reject) => (expire = reject));
  const arm = () => {
    armedAt = performance.now();
    timer = setTimeout(() => expire(new DatabaseUnavailableError()), Math.max(0, remaining));
  };
  const outsideDeadline: OutsideDeadline = async (work) => {
    clearTimeout(timer);
    remaining -= performance.now() - armedAt;
    try {
      return await work();
    } finally {
      arm();
    }
  };
  arm();
  try {
    return await Promise.race([fn(outsideDeadline), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
