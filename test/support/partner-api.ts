import { expect } from 'vitest';
import { NYC, type TestPartner } from './service';

/** Who calls: a TestPartner, or any base URL and headers (no, wrong or extra credentials; another process). */
export type Caller = Pick<TestPartner, 'baseUrl' | 'headers'>;

export interface Reply {
  status: number;
  headers: Headers;
  /** The body as received, for byte-for-byte comparisons. */
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON (`text` has it then). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the API answered
  body: any;
}

export interface CallOptions {
  /** Abort the request after this long, so that a hanging server fails the test instead of stalling it. */
  timeoutMs?: number;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One request to the service as `who`, with exactly `who.headers`. `body` is sent as JSON, except a
 * string or bytes, which are sent as they are (malformed JSON, exact bytes); undefined sends no body.
 */
export async function call(method: string, path: string, who: Caller, body?: unknown, opts: CallOptions = {}): Promise<Reply> {
  const res = await fetch(`${who.baseUrl}${path}`, {
    method,
    headers: who.headers,
    body:
      body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
    signal: opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: parseJson(text) };
}

/** A fresh quote (NYC, well inside the default service radius); returns its id. */
export async function newQuote(who: TestPartner): Promise<string> {
  const res = await call('POST', '/partner/quotes', who, NYC);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A fresh order from a fresh quote; returns the order as the API answered it. */
export async function newOrder(who: TestPartner, extra: Record<string, unknown> = {}): Promise<Reply['body']> {
  const res = await call('POST', '/partner/orders', who, { quote_id: await newQuote(who), ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The order as GET /partner/orders/{id} answers it (200 expected). */
export async function getOrder(who: TestPartner, id: string): Promise<Reply['body']> {
  const res = await call('GET', `/partner/orders/${id}`, who);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
