import type { LookupAddress } from 'node:dns';
import { subscribe } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { blockedRange } from './address-policy';
import type { Resolver } from './url-policy';

export type AttemptErrorKind = 'timeout' | 'connection' | 'tls' | 'dns' | 'blocked_address' | 'http_status' | 'internal';

/** `address`: the peer the request was written to (after the address policy); absent when it never got that far. */
export type PostOutcome =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: string; durationMs: number; address?: string }
  | { kind: 'error'; errorKind: Exclude<AttemptErrorKind, 'http_status'>; message: string; durationMs: number; address?: string };

export const MAX_RESPONSE_BODY = 16 * 1024;
/** Connections a worker keeps to one origin: requests past them wait inside the client for one to free. */
export const CONNECTIONS_PER_ORIGIN = 64;

interface Options {
  resolve: Resolver;
  allowPrivate: boolean;
  timeoutMs: number;
  userAgent: string;
}

class BlockedAddressError extends Error {
  code = 'EBLOCKEDADDRESS';
}

/** Passed to undici as the request's `opaque`: filled in when the request's headers go out on a socket. */
class Sent {
  address?: string;
  /** Set when `mayWrite` said no as the request was about to be written: nothing of it went out. */
  withheld = false;
  constructor(readonly mayWrite?: () => boolean) {}
}

// undici tells no caller which socket carried a request (keep-alive reuses them, so the DNS answer at
// connect time is not it either). Its diagnostics channel does, with its own request object, whose
// handler holds our `opaque`. The handler sits behind a private symbol: if an undici upgrade moves
// it, the address is simply not recorded (test/graphql/deliveries.test.ts checks that it is). The
// symbol is looked up on each request, not cached: Node's own fetch publishes on the same channel with
// its bundled undici, whose symbol is another one.
//
// The same message is the last moment before a request is written (undici publishes it, then writes the
// headers and body): a request whose `mayWrite` now says no is aborted there and nothing goes out. A
// worker frozen between starting an attempt and its write (a TLS handshake under way, say) past its
// claims and its heartbeat woke and wrote it, while the worker that took the attempt over had sent it
// too (test/webhooks/stall.test.ts, 1 run in 5).
subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as {
    request: Record<symbol, { opaque?: unknown; abort?: (reason: Error) => void } | undefined>;
    socket: Socket;
  };
  const key = Object.getOwnPropertySymbols(request).find((s) => s.description === 'handler');
  const handler = key ? request[key] : undefined;
  const opaque = handler?.opaque;
  if (!(opaque instanceof Sent)) return;
  if (opaque.mayWrite && !opaque.mayWrite()) {
    opaque.withheld = true;
    const reason = new Error('withheld: the claim was not confirmed since the worker stalled');
    if (handler!.abort) handler!.abort(reason);
    else socket.destroy(reason);
    return;
  }
  opaque.address = socket.remoteAddress;
});

/**
 * The only way deliveries leave the service. Every new connection resolves the host through the
 * address policy in `lookup`, so the socket connects to an address that was checked (a DNS answer
 * that changes between the check and the connect cannot slip through). Keep-alive pools per origin;
 * redirects are never followed.
 */
export function createWebhookClient(opts: Options) {
  const lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    // The same name the policy check resolved (url-policy strips trailing dots), so both ask one question.
    opts.resolve(hostname.toLowerCase().replace(/\.+$/, '')).then(
      (addresses) => {
        const allowed = opts.allowPrivate ? addresses : addresses.filter((a) => !blockedRange(a));
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }));
        if (allowed.length === 0) return callback(new BlockedAddressError(`${hostname} does not resolve to a publicly routable address`));
        const list: LookupAddress[] = allowed.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  };
  const agent = new Agent({
    connect: { lookup: lookup as never, timeout: opts.timeoutMs },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 30_000,
    connections: CONNECTIONS_PER_ORIGIN,
  });

  /**
   * `mayWrite`, asked as the request is about to be written: false withholds it (nothing is written) and
   * answers `withheld`, for the caller to confirm its claim first.
   */
  async function post(
    url: string,
    headers: Record<string, string>,
    body: string,
    mayWrite?: () => boolean,
  ): Promise<PostOutcome | { kind: 'withheld' }> {
    const started = performance.now();
    const sent = new Sent(mayWrite);
    const deadline = new Deadline(opts.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        opaque: sent,
        headers: { ...headers, 'user-agent': opts.userAgent },
        body,
        dispatcher: agent,
        signal: deadline,
      });
      const text = await readCapped(res.body);
      return {
        kind: 'response',
        status: res.statusCode,
        headers: flatten(res.headers),
        body: text,
        durationMs: msSince(started),
        address: sent.address,
      };
    } catch (error) {
      if (sent.withheld) return { kind: 'withheld' };
      return { kind: 'error', errorKind: classify(error), message: describe(error), durationMs: msSince(started), address: sent.address };
    } finally {
      deadline.clear();
    }
  }

  // close waits for requests in flight; destroy aborts them (a stopping worker past its deadline).
  return { post, close: () => agent.close(), destroy: () => agent.destroy() };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;

/**
 * An attempt's whole-time limit (connect, headers and body together) in the form undici also takes
 * for `signal`: an emitter of `abort` with `aborted` and `reason`. `AbortSignal.timeout` did the same
 * for ~33 us of the ~900 us an attempt cost (its signal's setup and a weakly held timer;
 * `npm run bench -- delivery --profile`); this is one timer, cleared when the attempt ends.
 */
class Deadline extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = Object.assign(new Error(`no answer within ${ms} ms`), { name: 'TimeoutError' });
      this.emit('abort');
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * The answer's body, at most MAX_RESPONSE_BODY of it (the rest is not read). Read by its events: a
 * `for await` over it cost ~29 us an attempt, mostly the async iterator (`npm run bench -- delivery
 * --profile`), for bodies that are a few bytes.
 */
function readCapped(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_RESPONSE_BODY && !settled) {
        settled = true;
        resolve(textOf(chunks, size));
        body.destroy();
      }
    });
    body.once('end', () => settled || ((settled = true), resolve(textOf(chunks, size))));
    body.once('error', (error) => settled || ((settled = true), reject(error)));
    body.once('close', () => {
      if (settled) return;
      settled = true;
      reject(Object.assign(new Error('the answer ended before its body did'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

// An attempt's helpers are module functions, not closures named inside `post` and `readCapped`: tsx compiles with
// esbuild's keepNames, which gives every named closure an Object.defineProperty of its name each time it is made.
// Those two took 3.7-7.4 us of the service's CPU per replayed event (`npm run bench -- replay --profile`, `__name`).
function textOf(chunks: Buffer[], size: number): string {
  return Buffer.concat(chunks, size).subarray(0, MAX_RESPONSE_BODY).toString('utf8');
}

function msSince(started: number): number {
  return Math.round(performance.now() - started);
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function codeOf(error: unknown): string {
  for (let e = error, i = 0; e && i < 4; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if ((e as { name?: string }).name === 'TimeoutError' || (e as { name?: string }).name === 'AbortError') return 'TIMEOUT';
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

function classify(error: unknown): Exclude<AttemptErrorKind, 'http_status'> {
  const code = codeOf(error);
  if (code === 'EBLOCKEDADDRESS') return 'blocked_address';
  if (code === 'TIMEOUT' || code.includes('TIMEOUT') || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code.includes('SELF_SIGNED') ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  )
    return 'tls';
  return 'connection';
}

function describe(error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}
