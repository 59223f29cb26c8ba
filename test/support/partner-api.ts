import { expect } from 'vitest';
import { createPartnerClient, type PartnerClient, type paths } from '@partner-delivery/client';
import { NYC, type TestPartner } from './service';

// Ordinary partner calls go through the partner's typed client (clients/typescript/, generated from the
// OpenAPI document), so the client is used on every run and cannot drift from the routes unseen. `call`
// stays for what a client would never send: exact bytes, wrong or missing credentials, malformed input,
// and assertions on the raw answer.

/**
 * `who`'s typed client: its credential on every request. Unlike a partner's default, no X-Service-Version
 * unless `version` names one: the answers are in the environment's pin, as the raw calls' always were, so
 * that the tests of versions and pins see what a partner's own requests would.
 */
export function clientFor(
  who: Pick<TestPartner, 'baseUrl' | 'clientId' | 'apiKey'>,
  opts: { version?: string; headers?: Record<string, string> } = {},
): PartnerClient {
  return createPartnerClient({
    baseUrl: who.baseUrl,
    clientId: who.clientId,
    apiKey: who.apiKey,
    headers: opts.headers,
    version: opts.version ?? null,
  });
}

/** The success body of a client call, after checking its status (the error body is the message otherwise). */
export function expectStatus<T>(status: number, answer: { data?: T; error?: unknown; response: Response }): T {
  expect(answer.response.status, JSON.stringify(answer.error ?? answer.data)).toBe(status);
  return answer.data!;
}

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

type CreateOrder = paths['/partner/orders']['post']['requestBody']['content']['application/json'];
export type CreateSubscription = paths['/partner/webhooks']['post']['requestBody']['content']['application/json'];

/** A fresh quote (NYC, well inside the default service radius); returns its id. */
export async function newQuote(who: TestPartner): Promise<string> {
  return expectStatus(201, await clientFor(who).POST('/partner/quotes', { body: NYC })).id;
}

/** A fresh order from a fresh quote; returns the order as the API answered it. */
export async function newOrder(who: TestPartner, extra: Omit<Partial<CreateOrder>, 'quote_id'> = {}) {
  return expectStatus(201, await clientFor(who).POST('/partner/orders', { body: { quote_id: await newQuote(who), ...extra } }));
}

/** The order as GET /partner/orders/{id} answers it (200 expected). */
export async function getOrder(who: TestPartner, id: string) {
  return expectStatus(200, await clientFor(who).GET('/partner/orders/{id}', { params: { path: { id } } }));
}

/** A new webhook subscription (201 expected); its answer holds the signing secret, shown this once. */
export async function newSubscription(who: TestPartner, body: CreateSubscription) {
  return expectStatus(201, await clientFor(who).POST('/partner/webhooks', { body }));
}
