import { createServer, IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { newRequestId } from '../ids';
import { CLIENT_ADDRESS_HEADER } from '../auth/client-address';
import { AppError } from '../errors';
import { errorAnswer } from './error-response';
import { answerResponse, jsonAnswer, nodeExchange, writeAnswer, type Answer } from './exchange';
import type { Metrics } from '../observability';
import type { HttpMethod } from './route-spec';
import type { OperatorHandler } from './operator-route';
import type { OperatorServices } from './operator-services';
import { secureConsoleResponse } from './console-security';
import { isDocsPath, type DocsHandler } from './docs-site';
import { loggedPath, targetPath } from './logged-path';
import { isOperatorApiPath, isPartnerPath, routeFinder, type RouteEntry } from './routes';
import type { PartnerServices } from './services';
import { LATEST_VERSION } from '../versions/registry';
import { VERSION_HEADER } from './version-header';

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Options {
  routes: RouteEntry[];
  /** Handed to every partner handler (the process's services). */
  services: PartnerServices;
  /** The operator API (/api/...: GraphQL, sign-in) and what its routes need. */
  operator?: { routes: RouteEntry<OperatorHandler>[]; services: OperatorServices };
  /** Serves everything that is not a partner route (the console); absent when CONSOLE=off. */
  next?: NextHandler;
  /** /docs: the partner reference and guides (server/http/docs-site.ts), served with or without the console. */
  docs?: DocsHandler;
  readiness: () => Promise<boolean>;
  /**
   * With a read replica: where list reads go now (`replica` or `primary`), shown on /readyz. Readiness
   * itself is the primary's: a replica down or behind sends reads to the primary, it stops no traffic.
   */
  readsFrom?: () => 'replica' | 'primary';
  /** Request counts and latencies go to `observe`; GET /metrics answers `scrape` to clients `allowed` lets in. */
  metrics?: {
    observe: Metrics;
    scrape(): Promise<{ contentType: string; text: string }>;
    allowed(req: IncomingMessage): boolean;
  };
  /** True from the first SIGTERM/SIGINT: /readyz answers 503 so a load balancer stops sending. */
  draining?: () => boolean;
}

/**
 * node:http's request with what its metrics line is labelled by, set where it is learned: the matched route's pattern,
 * and the version a partner answer was rendered in. Fields of the request rather than two WeakMaps keyed by it: each
 * WeakMap write of a new object took V8's slow write barrier, ~2 us a partner request (perf, lean, GET
 * /partner/event-types at 4,000 req/s).
 */
class LabelledRequest extends IncomingMessage {
  route: string | undefined = undefined;
  apiVersion: string | undefined = undefined;
}
const FIXED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The one socket owner. It stamps the socket's address on every request (after stripping any
 * client-sent copy), answers health checks, serves partner routes itself on node:http's request and
 * response (no Web Request/Response per request: route-spec.ts `serve`), dispatches the operator API
 * to its Web-standard handlers (Next's per-request machinery costs ~50x a plain call), and hands
 * everything else to Next.
 */
export function createFrontDoor({ routes, services, operator, next, docs, readiness, readsFrom, draining, metrics }: Options): Server {
  const listenerFor = <
    H extends (request: Request, context: { params: Promise<Record<string, string>>; services: S }) => Promise<Response>,
    S,
  >(
    table: RouteEntry<H>[],
    routeServices: S,
  ) => {
    const find = routeFinder(table);
    return getRequestListener(async (request, env) => {
      const found = find(new URL(request.url).pathname);
      if (!found) return answerResponse(notFound(request.url));
      const { route, params } = found;
      (env.incoming as LabelledRequest).route = route.path;
      const handler = route.handlers[request.method as HttpMethod];
      if (!handler) return answerResponse(methodNotAllowed(route, services));
      return handler(request, { params: Promise.resolve(params), services: routeServices });
    });
  };

  // Partner routes, natively: the route's `serve` reads node:http's request and its answer is written once.
  const servePartner = async (req: LabelledRequest, res: ServerResponse): Promise<void> => {
    let answer: Answer;
    try {
      answer = await partnerAnswer(req);
    } catch (error) {
      // The wrappers map every error themselves; this is for a fault in the front door's own code.
      const requestId = newRequestId();
      answer = errorAnswer(error, requestId, services.log, { 'x-request-id': requestId });
    }
    // Every partner answer names the version it is rendered in; one no route rendered (404, 405) is the latest's.
    answer.headers[VERSION_HEADER] ??= LATEST_VERSION;
    req.apiVersion = answer.headers[VERSION_HEADER];
    if (!res.headersSent) writeAnswer(res, answer);
  };
  const findPartnerRoute = routeFinder(routes);
  const partnerAnswer = async (req: LabelledRequest): Promise<Answer> => {
    const target = req.url ?? '/';
    // As @hono/node-server refused it before (URL would read it as a slash), but in JSON.
    const backslash = target.indexOf('\\');
    if (backslash >= 0 && (target.indexOf('?') < 0 || backslash < target.indexOf('?'))) {
      return refusal(services, 400, 'invalid_request_target', 'The request path must not hold a backslash.');
    }
    const found = findPartnerRoute(targetPath(target));
    if (!found) return notFound(target);
    const { route, params } = found;
    req.route = route.path;
    const handler = route.handlers[req.method as HttpMethod];
    if (!handler) return methodNotAllowed(route, services);
    return handler.serve(nodeExchange(req), params, services);
  };
  const operatorListener = operator ? listenerFor(operator.routes, operator.services) : undefined;
  const docsListener = docs ? getRequestListener(docs) : undefined;

  const server = createServer({ IncomingMessage: LabelledRequest }, async (req, res) => {
    // Read from the socket: any client-sent copy is overwritten (the Web paths also rewrite rawHeaders, below).
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? '';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    if (metrics) {
      const started = performance.now();
      res.once('finish', () => {
        const route = req.route ?? (FIXED_PATHS.has(pathname) ? pathname : 'other');
        metrics.observe.httpRequest(route, req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000, req.apiVersion);
      });
    }
    if (pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (pathname === '/readyz') {
      if (draining?.()) return sendJson(res, 503, { status: 'draining' });
      const ready = await readiness().catch(() => false);
      return sendJson(res, ready ? 200 : 503, {
        status: ready ? 'ready' : 'database_unreachable',
        ...(readsFrom ? { reads: readsFrom() } : {}),
      });
    }
    if (pathname === '/metrics' && metrics) {
      if (!metrics.allowed(req))
        return refuse(res, services, 403, 'metrics_forbidden', 'Metrics need the bearer token, or a loopback client.');
      const scraped = await metrics.scrape().catch((err: unknown) => void services.log.error({ err }, 'metrics scrape failed'));
      if (!scraped) return sendJson(res, 500, { status: 'metrics_unavailable' });
      const { contentType, text } = scraped;
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      return void res.end(text);
    }
    // Handlers may build a URL from Host: one that cannot be a host is refused here, in JSON.
    const host = canonicalHost(req.headers.host);
    if (host === undefined) return refuse(res, services, 400, 'invalid_host', 'The Host header is not a valid host name.');
    if (isPartnerPath(pathname)) return servePartner(req, res);
    const operatorPath = operatorListener && isOperatorApiPath(pathname);
    const docsPath = docsListener && isDocsPath(pathname);
    if (!operatorPath && !docsPath && !next) return servePartner(req, res);
    // The Web paths build their Request from rawHeaders, and @hono/node-server refuses (400, text/plain, no
    // body) a Host that URL would spell differently ([::ffff:127.0.0.1], an upper-case or IDN name): they get it
    // as URL spells it.
    stampClientAddress(req, host);
    if (operatorPath) return operatorListener(req, res);
    if (docsPath) {
      req.route = '/docs';
      return docsListener(req, res);
    }
    secureConsoleResponse(req, res);
    return next!(req, res);
  });
  // Node's parser refuses some requests before any handler runs (a header block over 16 KiB, a
  // malformed request line or header, conflicting Content-Length): answered with the same envelope.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') return void socket.destroy();
    const [status, code, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? ([431, 'headers_too_large', 'The request headers are larger than 16 KiB.'] as const)
        : ([400, 'malformed_request', 'The request is not valid HTTP/1.1.'] as const);
    const requestId = newRequestId();
    services.log.info({ request_id: requestId, code, err: err.code }, 'refused before routing');
    const body = JSON.stringify(errorBody(code, message, requestId));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\n` +
        `x-request-id: ${requestId}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  return server;
}

// Clients send the same Host over and over: the last one read is kept, so most requests parse none.
let lastHost: { sent: string; canonical: string | undefined } = { sent: '', canonical: undefined };

/** The Host as URL spells it (IPv6 literals included), or undefined when it cannot be a host. */
function canonicalHost(host: string | undefined): string | undefined {
  if (!host) return undefined;
  if (host === lastHost.sent) return lastHost.canonical;
  let canonical: string | undefined;
  try {
    canonical = /[\s/\\@?#]/.test(host) ? undefined : new URL(`http://${host}`).host;
  } catch {
    canonical = undefined;
  }
  lastHost = { sent: host, canonical };
  return canonical;
}

function errorBody(code: string, message: string, requestId: string) {
  return { error: { type: 'invalid_request_error', code, message, request_id: requestId } };
}

function refuse(res: ServerResponse, services: PartnerServices, status: number, code: string, message: string): void {
  const requestId = newRequestId();
  services.log.info({ request_id: requestId, code }, 'refused before routing');
  sendJson(res, status, errorBody(code, message, requestId), requestId);
}

function refusal(services: PartnerServices, status: number, code: string, message: string): Answer {
  const requestId = newRequestId();
  services.log.info({ request_id: requestId, code }, 'refused before routing');
  return jsonAnswer(status, errorBody(code, message, requestId), { 'x-request-id': requestId });
}

/**
 * Handlers learn the client address only from this header, so a client-sent copy is dropped and the
 * socket's address written in its place: in `headers` (what Next and the partner routes read) and in
 * `rawHeaders` (what the Web Request given to operator handlers is built from), with Host as URL spells it.
 */
function stampClientAddress(req: IncomingMessage, host: string): void {
  const address = req.socket.remoteAddress ?? '';
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (name === 'host') raw.push(req.rawHeaders[i]!, host);
    else if (name !== CLIENT_ADDRESS_HEADER) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  raw.push(CLIENT_ADDRESS_HEADER, address);
  req.rawHeaders.length = 0;
  req.rawHeaders.push(...raw);
  req.headers[CLIENT_ADDRESS_HEADER] = address;
  req.headers.host = host;
}

function methodNotAllowed(route: RouteEntry<unknown>, services: PartnerServices): Answer {
  const requestId = newRequestId();
  const allow = Object.keys(route.handlers).join(', ');
  return errorAnswer(new AppError('method_not_allowed', 'method_not_allowed', `This path accepts ${allow}.`), requestId, services.log, {
    allow,
    'x-request-id': requestId,
  });
}

function notFound(url: string): Answer {
  const requestId = newRequestId();
  return jsonAnswer(
    404,
    {
      error: {
        type: 'invalid_request_error',
        code: 'route_not_found',
        message: `No route for ${loggedPath(url)}. See /partner/openapi.json.`,
        request_id: requestId,
      },
    },
    { 'x-request-id': requestId },
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown, requestId = newRequestId()): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-request-id': requestId,
  });
  res.end(text);
}
