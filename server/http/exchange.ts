import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';

/**
 * What a route wrapper reads of a request, whichever way it came: node:http's IncomingMessage (the front
 * door's native path) or a Web `Request` (the route file's Next-compatible export). The wrappers
 * (partner-route.ts, public-route.ts) are written against this, and build no Web objects of their own:
 * measured (`npm run bench -- overhead --profile`), the Request/Response pair @hono/node-server made for
 * every partner request was the largest share of its CPU.
 */
export interface Exchange {
  readonly method: string;
  /** The request target as sent: path and query (/partner/quotes?limit=5). */
  readonly target: string;
  /** A header's value (name in lower case), repeated ones joined with ", "; null when absent. */
  header(name: string): string | null;
  /** The body's bytes: 413 past `limit` (declared or streamed), 408 when it is not all there within `timeoutMs`. */
  readBody(limit: number, timeoutMs: number): Promise<Buffer>;
  /** The request as a Web `Request`, made on first use (a handler that asks for it; none of ours does). */
  request(): Request;
}

/** An answer, serialised once: written to the socket by the front door, or wrapped in a Response by the Web export. */
export interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** JSON text; null for a 204. */
  body: string | null;
  /** The same text as bytes, when the answer is a constant kept encoded (written as is). */
  bytes?: Buffer;
}

export function jsonAnswer(status: number, body: unknown, headers?: Record<string, string>): Answer {
  return { status, headers: jsonHeaders(headers), body: status === 204 ? null : JSON.stringify(body) };
}

/**
 * A JSON answer's headers, then `extra` (which wins): a literal with the extras assigned onto it, not a spread of both
 * (server/objects.ts says why; the partner answer's `{ ...a, ...b }` was the ~18 us it measured).
 */
export function jsonHeaders(extra?: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  return extra ? Object.assign(headers, extra) : headers;
}

export function answerResponse(answer: Answer): Response {
  return new Response(answer.status === 204 ? null : answer.body, { status: answer.status, headers: answer.headers });
}

export function writeAnswer(res: ServerResponse, answer: Answer): void {
  if (answer.body === null || answer.status === 204) {
    res.writeHead(answer.status, answer.headers);
    res.end();
    return;
  }
  const body = answer.bytes ?? answer.body;
  answer.headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(answer.status, answer.headers);
  res.end(body);
}

/** The request as node:http parsed it: headers read where Node keeps them, the body from the socket. */
export function nodeExchange(req: IncomingMessage): Exchange {
  let read: Buffer | undefined;
  let built: Request | undefined;
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    header(name) {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    async readBody(limit, timeoutMs) {
      read = await readIncoming(req, limit, timeoutMs);
      return read;
    },
    request() {
      if (built) return built;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const method = req.method ?? 'GET';
      const hasBody = read !== undefined && read.length > 0 && method !== 'GET' && method !== 'HEAD';
      built = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
        method,
        headers,
        body: hasBody ? new Uint8Array(read!) : undefined,
      });
      return built;
    },
  };
}

/** A Web Request, for the Next-compatible export and anything else that calls a route that way. */
export function webExchange(request: Request): Exchange {
  const url = new URL(request.url);
  return {
    method: request.method,
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name),
    readBody: (limit, timeoutMs) => readWebBody(request, limit, timeoutMs),
    request: () => request,
  };
}

export function payloadTooLarge(limit: number): AppError {
  return new AppError('payload_too_large', 'payload_too_large', `Request bodies are limited to ${limit} bytes.`);
}

// A body trickled in slower than this is the client's problem: 408, never a 503 about the database.
function bodyTimeout(timeoutMs: number): AppError {
  return new AppError('request_timeout', 'request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`, {
    headers: { connection: 'close' },
  });
}

function closing(error: AppError): AppError {
  error.details.headers = { ...error.details.headers, connection: 'close' };
  return error;
}

function readIncoming(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  // Not read at all: the answer closes the connection rather than have Node read and drop the declared bytes.
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(closing(payloadTooLarge(limit)));
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // The listeners as methods of one object, not named closures: under tsx (esbuild's keepNames) each named
    // closure costs a property definition, ~10 us of a body read under the profiler with four of them.
    const on = {
      done(error?: AppError) {
        clearTimeout(timer);
        req.off('data', on.data);
        req.off('end', on.end);
        req.off('error', on.gone);
        req.off('aborted', on.gone);
        if (error) {
          // The rest is not read: the answer closes the connection (Node would otherwise read and drop it all).
          req.pause();
          reject(closing(error));
        } else {
          resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
        }
      },
      data(chunk: Buffer) {
        size += chunk.length;
        if (size > limit) return on.done(payloadTooLarge(limit));
        chunks.push(chunk);
      },
      end() {
        on.done();
      },
      // A client that went away: nobody reads the answer, but the request still ends as an error.
      gone() {
        on.done(bodyTimeout(timeoutMs));
      },
    };
    const timer = setTimeout(on.gone, timeoutMs);
    req.on('data', on.data);
    req.on('end', on.end);
    req.on('error', on.gone);
    req.on('aborted', on.gone);
  });
}

async function readWebBody(request: Request, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw payloadTooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected before the read is cancelled: a cancel ends the pending read as if the body were complete.
      reject(bodyTimeout(timeoutMs));
      reader.cancel().catch(() => {});
    }, timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw payloadTooLarge(limit);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}
