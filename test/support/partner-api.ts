import { expect } from 'vitest';
import { NYC, type TestPartner } from './service';

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the API answered
  body: any;
}

/** One request to the partner API as `who`, JSON in, status and parsed JSON out. */
export async function call(method: string, path: string, who: TestPartner, body?: unknown): Promise<Reply> {
  const res = await fetch(`${who.baseUrl}${path}`, { method, headers: who.headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
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
