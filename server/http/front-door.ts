import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { newRequestId } from '../ids';
import { CLIENT_ADDRESS_HEADER } from '../auth/client-address';
import { AppError } from '../errors';
import { errorResponse } from './error-response';
import { jsonResponse } from './json';
import type { Metrics } from '../observability';
import type { HttpMethod } from './route-spec';
import type { OperatorHandler } from './operator-route';
import type { OperatorServices } from './operator-services';
import { secureConsoleResponse } from './console-security';
import { isDocsPath, type DocsHandler } from './docs-site';
import { loggedPath } from './logged-path';
import { isOperatorApiPath, isPartnerPath, type RouteEntry } from './routes';
import type { PartnerServices } from './services';
import { LATEST_VERSION } from '../versions/registry';

const VERSION_HEADER = 'x-service-version';

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

// The matched route's pattern, set by the route listeners for the request's metrics label; and the version a
// partner answer was rendered in, for its `api_version` label.
const routePatterns = new WeakMap<IncomingMessage, string>();
const answeredVersions = new WeakMap<IncomingMessage, string>();
const FIXED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The one socket owner. It stamps the socket's address on every request (after stripping any
 * client-sent copy), answers health checks, dispatches partner routes straight to their
 * Web-standard handlers (Next's per-request machinery costs ~50x a plain call), and hands
 * everything else to Next.
 */
export function createFrontDoor({ routes, services, operator, next, docs, readiness, readsFrom, draining, metrics }: Options): Server {
  const listenerFor = <
    H extends (request: Request, context: { params: Promise<Record<string, string>>; services: S }) => Promise<Response>,
    S,
  >(
    table: RouteEntry<H>[],
    routeServices: S,
    finish: (response: Response, incoming: IncomingMessage) => Response = (response) => response,
  ) =>
    getRequestListener(async (request, env) => {
      const pathname = new URL(request.url).pathname;
      for (const route of table) {
        const params = route.match(pathname);
        if (!params) continue;
        if (metrics) routePatterns.set(env.incoming as IncomingMessage, route.path);
        const handler = route.handlers[request.method as HttpMethod];
        if (!handler) return finish(methodNotAllowed(route, services), env.incoming as IncomingMessage);
        return finish(
          await handler(request, { params: Promise.resolve(params), services: routeServices }),
          env.incoming as IncomingMessage,
        );
      }
      return finish(notFound(request.url), env.incoming as IncomingMessage);
    });
  // Every partner answer names the version it is rendered in; one no route rendered (404, 405) is the latest's.
  const partnerListener = listenerFor(routes, services, (response, incoming) => {
    if (!response.headers.has(VERSION_HEADER)) response.headers.set(VERSION_HEADER, LATEST_VERSION);
    if (metrics) answeredVersions.set(incoming, response.headers.get(VERSION_HEADER)!);
    return response;
  });
  const operatorListener = operator ? listenerFor(operator.routes, operator.services) : undefined;
  const docsListener = docs ? getRequestListener(docs) : undefined;

  const server = createServer(async (req, res) => {
    stampClientAddress(req);
    const url = req.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    if (metrics) {
      const started = performance.now();
      res.once('finish', () => {
        const route = routePatterns.get(req) ?? (FIXED_PATHS.has(pathname) ? pathname : 'other');
        metrics.observe.httpRequest(
          route,
          req.method ?? 'GET',
          res.statusCode,
          (performance.now() - started) / 1000,
          answeredVersions.get(req),
        );
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
    // Every handler builds a URL from Host: one that cannot be a host is refused here, in JSON.
    if (!validHost(req.headers.host)) return refuse(res, services, 400, 'invalid_host', 'The Host header is not a valid host name.');
    if (isPartnerPath(pathname)) return partnerListener(req, res);
    if (operatorListener && isOperatorApiPath(pathname)) return operatorListener(req, res);
    if (docsListener && isDocsPath(pathname)) {
      if (metrics) routePatterns.set(req, '/docs');
      return docsListener(req, res);
    }
    if (next) {
      secureConsoleResponse(req, res);
      return next(req, res);
    }
    return partnerListener(req, res);
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

function validHost(host: string | undefined): boolean {
  if (!host || /[\s/\\@?#]/.test(host)) return false;
  try {
    new URL(`http://${host}`);
    return true;
  } catch {
    return false;
  }
}

function errorBody(code: string, message: string, requestId: string) {
  return { error: { type: 'invalid_request_error', code, message, request_id: requestId } };
}

function refuse(res: ServerResponse, services: PartnerServices, status: number, code: string, message: string): void {
  const requestId = newRequestId();
  services.log.info({ request_id: requestId, code }, 'refused before routing');
  sendJson(res, status, errorBody(code, message, requestId), requestId);
}

/**
 * Handlers learn the client address only from this header, so a client-sent copy is dropped and the
 * socket's address written in its place: in `headers` (what Next reads) and in `rawHeaders` (what
 * the Web Request given to partner handlers is built from).
 */
function stampClientAddress(req: IncomingMessage): void {
  const address = req.socket.remoteAddress ?? '';
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== CLIENT_ADDRESS_HEADER) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  raw.push(CLIENT_ADDRESS_HEADER, address);
  req.rawHeaders.length = 0;
  req.rawHeaders.push(...raw);
  req.headers[CLIENT_ADDRESS_HEADER] = address;
}

function methodNotAllowed(route: RouteEntry<unknown>, services: PartnerServices): Response {
  const requestId = newRequestId();
  const allow = Object.keys(route.handlers).join(', ');
  return errorResponse(new AppError('method_not_allowed', 'method_not_allowed', `This path accepts ${allow}.`), requestId, services.log, {
    allow,
    'x-request-id': requestId,
  });
}

function notFound(url: string): Response {
  const requestId = newRequestId();
  return jsonResponse(
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
