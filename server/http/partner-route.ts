import type { z } from 'zod';
import { contextFor, primaryReads, type Ctx, type PartnerActor, type TenantCtx } from '../context';
import { AuthenticationError, DatabaseUnavailableError, NotFoundError, RateLimitedError } from '../errors';
import { requestFingerprint, validateIdempotencyKey } from '../idempotency/store';
import type { RateDecision } from '../rate-limit/limiter';
import { recordFailedRequest } from '../request-failures/record';
import { isStorableText, parseOrThrow, storableQuery } from '../validation';
import { pinEnvironment } from '../pins/pin';
import { renderResponse, upgradeRequest } from '../versions/render';
import { parseVersion } from '../versions/requested';
import type { VerifiedCredential } from '../auth/credential-cache';
import { authenticate, AuthThrottledError, clientAddressOf, enforceAllowlist, refuseThrottled } from './authenticate';
import { readJsonBody } from './body';
import { jsonAnswer, jsonHeaders, type Answer, type Exchange } from './exchange';
import { runIdempotently } from './idempotent';
import { loggedPath, targetPath } from './logged-path';
import { serveRequest, type RequestRecord } from './serve-request';
import { fallbackVersionOf, VERSION_HEADER } from './version-header';
import { BODY_METHODS, specifiedHandler, type RouteSpec, type SpecifiedHandler } from './route-spec';
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
    /** The request as a Web Request, made when a handler reads it (the front door serves routes without one). */
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
): Answer {
  const headers = { [VERSION_HEADER]: version };
  if (def.alternative && typeof result === 'object' && result !== null && ALTERNATIVE in result) {
    return jsonAnswer(def.alternative.status, renderResponse((result as Alternative)[ALTERNATIVE], version), headers);
  }
  if (typeof result === 'object' && result !== null && Object.isFrozen(result)) {
    // A frozen answer is a constant (the event catalog): rendered, written out and encoded once per version.
    const texts = constantTexts.get(result) ?? constantTexts.set(result, new Map()).get(result)!;
    let text = texts.get(version);
    if (text === undefined) {
      const json = JSON.stringify(renderResponse(result, version));
      texts.set(version, (text = { json, bytes: Buffer.from(json) }));
    }
    const status = def.response.status;
    const answerHeaders = jsonHeaders(headers);
    return status === 204
      ? { status, headers: answerHeaders, body: null }
      : { status, headers: answerHeaders, body: text.json, bytes: text.bytes };
  }
  return jsonAnswer(def.response.status, renderResponse(result, version), headers);
}

const constantTexts = new WeakMap<object, Map<string, { json: string; bytes: Buffer }>>();

/**
 * The environment's pin, pinned now when this is its first request (server/pins/pin.ts). The pin rides on
 * the cached credential, so only that first request costs a query.
 */
async function pinOf(credential: VerifiedCredential, ctx: TenantCtx): Promise<string> {
  return credential.apiVersion ?? (credential.apiVersion = await pinEnvironment({ ctx }));
}

/**
 * The one wrapper every partner route goes through. In order: request id, authentication (401),
 * IP allowlist (403), rate limit (429), body (413/415/400), validation (400), idempotency, the
 * domain verb, and error mapping. Route files stay a few lines long.
 *
 * Written once against an Exchange (exchange.ts), it serves both ways: the front door calls `serve` with
 * node:http's request and writes the answer itself; the export (a Next-style `(Request, context) =>
 * Response`) wraps the same `serve` in Web objects for anything that still calls a route that way.
 */
export function partnerRoute<
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  P extends z.ZodType | undefined,
  R extends z.ZodType,
>(def: Definition<B, Q, P, R>): SpecifiedHandler {
  const { handler: _handler, ...spec } = def;
  const routeSpec: RouteSpec = { ...spec, auth: true } as RouteSpec;
  const route = def as unknown as AnyDefinition;
  return specifiedHandler(routeSpec, (exchange, rawParams, services) => {
    // A flood of wrong keys from an address already over its failure budget: refused before anything else is built.
    const refused = refuseThrottled(exchange, services);
    return refused ? Promise.resolve(refused) : new PartnerCall(route, exchange, rawParams, services).serve();
  });
}

type AnyDefinition = Definition<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType>;

/**
 * One partner request on its way through partnerRoute: what the steps learn (the credential, the version,
 * the rate-limit headers) kept in fields, and the steps as methods. A class rather than closures: the
 * closures this replaced were made for every request, and each named one cost a property definition under
 * tsx (esbuild's keepNames, ~0.8 us apiece); with them the request allocated 2 KB more (V8's sampling heap
 * profiler, 20,000 in-process GET /partner/event-types).
 */
class PartnerCall {
  private rateHeaders: Record<string, string> | undefined;
  private tenant: { partnerId: string; environment: 'sandbox' | 'production' } | undefined;
  private version: string | undefined;
  private authFailed = false;
  // Set once the request passed authentication, the allowlist and the rate limit: from there on a failure is kept.
  private admitted: Ctx<PartnerActor> | undefined;
  // Resolved only when needed: a known key never asks for it.
  private address: string | undefined;
  private args: ValidatedArgs | undefined;

  constructor(
    private readonly def: AnyDefinition,
    private readonly exchange: Exchange,
    private readonly rawParams: Record<string, string | string[] | undefined>,
    private readonly services: PartnerServices,
  ) {}

  async serve(): Promise<Answer> {
    const answered = await serveRequest(
      this.exchange,
      this.services.log,
      'partner request',
      (record) => this.handle(record),
      (answer, record) => this.finish(answer, record),
    );
    return this.admitted && keptFailure(answered) ? keepFailure(this.admitted, this.exchange, answered) : answered;
  }

  addressOf(): string {
    return (this.address ??= clientAddressOf(this.exchange, this.services.trustedProxies));
  }

  /** A request never hangs on a database that stopped answering: past REQUEST_TIMEOUT_MS it is a 503. */
  private async handle(record: RequestRecord): Promise<Answer> {
    const deadline = new Deadline(this.services.env.REQUEST_TIMEOUT_MS);
    try {
      return await deadline.race(this.admit(record, deadline));
    } finally {
      deadline.stop();
    }
  }

  private async admit(record: RequestRecord, deadline: Deadline): Promise<Answer> {
    const { exchange, services, def } = this;
    let credential: VerifiedCredential;
    try {
      // Authentication and the rate limit answer at once for a known key holding tokens: awaited only when they query.
      const authenticated = authenticate(exchange, services, this);
      credential = authenticated instanceof Promise ? await authenticated : authenticated;
    } catch (error) {
      this.authFailed = error instanceof AuthenticationError || error instanceof AuthThrottledError;
      throw error;
    }
    record.fields.client_id = credential.clientId;
    this.tenant = credential;
    enforceAllowlist(exchange, credential, services.trustedProxies);
    const taken = services.rateLimiter.take(credential.clientId, credential.ratePerSecond, credential.burst);
    const decision = taken instanceof Promise ? await taken : taken;
    this.rateHeaders = rateLimitHeaders(decision);
    if (!decision.allowed) throw new RateLimitedError(decision.resetSeconds, {});

    // A request that writes reads the primary throughout: its answer shows what it did (Deps.read).
    const readOnly = exchange.method === 'GET' || exchange.method === 'HEAD';
    const partnerCtx: Ctx<PartnerActor> = contextFor(services, actorOf(credential), record.requestId);
    const ctx = readOnly ? partnerCtx : primaryReads(partnerCtx);
    this.admitted = ctx;
    // The request's X-Service-Version, else the pin; an unknown or malformed header is a 400 rendered in the pin.
    let version = (this.version = await pinOf(credential, ctx));
    const requested = exchange.header(VERSION_HEADER);
    if (requested !== null) version = this.version = parseVersion(requested.trim(), 'X-Service-Version');
    const body = BODY_METHODS.has(exchange.method)
      ? await deadline.outside(() => readJsonBody(exchange, services.env.REQUEST_BODY_TIMEOUT_MS))
      : undefined;
    const query = exchange.target.indexOf('?');
    // Every 400 is decided here, before an Idempotency-Key is claimed: a request that never
    // started executing stores nothing, so the client can correct it and retry with the same key.
    this.args = {
      // An absent body reads as {}; a JSON `null` is a body, and not an object.
      // Sent in the request's version, validated in the latest: the body goes up through the changes since.
      body: def.body ? parseOrThrow(def.body, upgradeRequest(def.operationId, body === undefined ? {} : body.value, version)) : undefined,
      query: def.query
        ? parseOrThrow(def.query, storableQuery(new URLSearchParams(query < 0 ? '' : exchange.target.slice(query + 1))))
        : undefined,
      params: def.params ? parsePathParams(def.params, this.rawParams) : undefined,
      version,
    };
    const idempotencyKey = exchange.method === 'POST' ? exchange.header('idempotency-key') : null;
    if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
    if (idempotencyKey === null) return this.execute(ctx);
    const fingerprint = requestFingerprint(exchange.method, targetPath(exchange.target), body?.raw ?? '');
    return runIdempotently({ services, ctx, key: idempotencyKey, fingerprint, execute: (on) => this.execute(on) });
  }

  /** The verb on `on` (the request's ctx, or the idempotency key's transaction), its answer rendered in the version. */
  private async execute(on: TenantCtx): Promise<Answer> {
    const { body, query, params, version } = this.args!;
    const result = await this.def.handler(new HandlerArgs(on, body, query, params, version, this.exchange));
    return answer(this.def, result, version);
  }

  private finish(answer: Answer, record: RequestRecord): void {
    if (this.rateHeaders) Object.assign(answer.headers, this.rateHeaders);
    // Errors too: every answer names the version that rendered it (an idempotent replay, the one it was first rendered in).
    answer.headers[VERSION_HEADER] ??= this.version ?? fallbackVersionOf(this.exchange);
    // A map bump: the go-live checklist's counts reach the database in batches (server/onboarding/request-counts.ts).
    const tenant = this.tenant;
    if (tenant) {
      this.services.requestCounts.count(tenant.partnerId, tenant.environment, answer.status, 'idempotent-replayed' in answer.headers);
    }
    // Failed authentications are counted per address, and logged once per address and window with
    // the count of those left out: a flood of wrong keys is not a flood of log lines.
    const sampled = this.authFailed ? this.services.authFailures.fail(this.addressOf()) : undefined;
    if (sampled) {
      record.log = sampled.log;
      Object.assign(record.fields, { client_address: this.addressOf(), failures_not_logged: sampled.suppressed });
    }
  }
}

interface ValidatedArgs {
  body: unknown;
  query: unknown;
  params: unknown;
  version: string;
}

/**
 * What a handler is called with. A class, not an object literal with a `request` getter: V8 (Node 20) builds a literal
 * with an accessor in its runtime, 0.7-0.9 us a call in a loop against 0.03 for the class.
 */
class HandlerArgs {
  constructor(
    readonly ctx: TenantCtx,
    readonly body: unknown,
    readonly query: unknown,
    readonly params: unknown,
    readonly version: string,
    private readonly exchange: Exchange,
  ) {}

  /** The request as a Web Request, made when a handler reads it. */
  get request(): Request {
    return this.exchange.request();
  }
}

/** The actor of a credential's requests: one object per credential, kept on it, not one per request. */
function actorOf(credential: VerifiedCredential): PartnerActor {
  return (credential.actor ??= {
    kind: 'partner',
    partnerId: credential.partnerId,
    environment: credential.environment,
    credentialId: credential.credentialId,
    clientId: credential.clientId,
  });
}

/** The longest a failed answer waits for its record (keepFailure). */
const RECORD_WAIT_MS = 250;

/**
 * Which failed answers are kept under their request id (server/request-failures/): every 4xx and 500 of a
 * request that was admitted. Not a 429 (refused before it was admitted), not a 503 (the database those rows
 * go to is what failed, or was too slow), not an idempotent replay (its first answer was kept).
 */
function keptFailure(answer: Answer): boolean {
  const { status } = answer;
  return status >= 400 && status !== 503 && !('idempotent-replayed' in answer.headers);
}

/** Keeps the failure, then answers it. */
async function keepFailure(ctx: Ctx<PartnerActor>, exchange: Exchange, answer: Answer): Promise<Answer> {
  const { status } = answer;
  let error: { code?: unknown; message?: unknown } | undefined;
  try {
    error = (JSON.parse(answer.body ?? '') as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  const recorded = recordFailedRequest({
    ctx,
    input: {
      method: exchange.method,
      path: loggedPath(exchange.target),
      status,
      code: typeof error?.code === 'string' ? error.code : 'unknown',
      message: typeof error?.message === 'string' ? error.message : '',
    },
  });
  // Recorded before the answer, so the id names it at once; a database that stopped answering (a key still in
  // the credential cache, a 400 that needed no query) delays the answer by this much at most, and the record
  // lands late or not at all.
  await Promise.race([recorded, new Promise((resolve) => setTimeout(resolve, RECORD_WAIT_MS).unref())]);
  return answer;
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

/**
 * A request's time against REQUEST_TIMEOUT_MS. Work passed to `outside` (receiving the body, the client's
 * time) stops the clock meanwhile.
 */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private armedAt = 0;
  private expire: ((error: Error) => void) | undefined;

  constructor(private remaining: number) {
    this.arm();
  }

  /** `work`'s outcome, or a DatabaseUnavailableError (503) once the time is up. */
  race<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.expire = reject;
      work.then(resolve, reject);
    });
  }

  async outside<U>(work: () => Promise<U>): Promise<U> {
    clearTimeout(this.timer);
    this.remaining -= performance.now() - this.armedAt;
    try {
      return await work();
    } finally {
      this.arm();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    this.armedAt = performance.now();
    this.timer = setTimeout(timeUp, Math.max(0, this.remaining), this);
  }

  /** The timer's: the race ends in a 503. */
  timeUp(): void {
    this.expire?.(new DatabaseUnavailableError());
  }
}

function timeUp(deadline: Deadline): void {
  deadline.timeUp();
}
