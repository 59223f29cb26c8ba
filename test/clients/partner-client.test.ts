import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Collection } from 'postman-collection';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type operations } from '@partner-delivery/client';
import { CLIENTS_DIR, COLLECTION_FILE, DOCUMENT_FILE } from '@/clients/generated-files';
import { connect, quoteAndOrder, receiveWebhooks } from '@/clients/typescript/examples/quick-start';
import { deliveryHeaders, generateWebhookSecret } from '@/server/delivery/signing';
import { FIRST_VERSION, LATEST_VERSION } from '@/server/versions/registry';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';
import { authType, collectionRequests, fill, resolvedUrl } from './postman';

// The committed client and collection against the running service: the document it serves is the one
// the client was generated from, the README's quick start runs, and the collection's requests answer.

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
});

const env = () => ({ PDP_BASE_URL: svc.url, PDP_CLIENT_ID: partner.clientId, PDP_API_KEY: partner.apiKey });

describe('the TypeScript client', () => {
  it('was generated from the document the service serves, in the latest version', async () => {
    const served = await (await fetch(`${svc.url}/partner/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(readFileSync(path.join(CLIENTS_DIR, DOCUMENT_FILE), 'utf8')));
    expect(API_VERSION).toBe(LATEST_VERSION);
  });

  it("runs the README's quick start: a quote, then an order, in the client's version", async () => {
    const order = await quoteAndOrder(connect(env()));
    expect(order).toMatchObject({ object: 'order', status: 'created', external_id: 'your-order-42' });
    const read = await connect(env()).GET('/partner/orders/{id}', { params: { path: { id: order.id } } });
    expect(read.data).toEqual(order);
    expect(read.response.headers.get('x-service-version')).toBe(API_VERSION);
  });

  it('sends the Idempotency-Key and X-Service-Version given per request, and types the error envelope', async () => {
    const api = connect(env());
    const quote = await api.POST('/partner/quotes', {
      body: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } },
    });
    const key = `client-test-${Date.now()}`;
    const order = () => api.POST('/partner/orders', { body: { quote_id: quote.data!.id }, params: { header: { 'Idempotency-Key': key } } });
    const [first, again] = [await order(), await order()];
    expect(first.response.status).toBe(201);
    expect(again.data).toEqual(first.data);

    type Version = NonNullable<operations['getOrder']['parameters']['header']>['X-Service-Version'];
    const inFirst = await api.GET('/partner/orders/{id}', {
      params: { path: { id: first.data!.id }, header: { 'X-Service-Version': FIRST_VERSION as Version } },
    });
    expect(inFirst.response.headers.get('x-service-version')).toBe(FIRST_VERSION);

    const unknown = await api.POST('/partner/orders', { body: { quote_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error?.error.type).toBe('invalid_request_error');
  });

  it("answers the README's receiver: 200 for a signed delivery, 400 with the reason otherwise", async () => {
    const secret = generateWebhookSecret();
    const seen: string[] = [];
    const server = receiveWebhooks([secret], (type, id) => seen.push(`${type} ${id}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'webhook.test' });
      const headers = deliveryHeaders({
        secrets: [secret],
        eventId: 'evt_1',
        eventType: 'webhook.test',
        apiVersion: API_VERSION,
        timestamp: Math.floor(Date.now() / 1000),
        body,
        userAgent: 'test',
      });
      const genuine = await fetch(url, { method: 'POST', headers, body });
      expect(genuine.status).toBe(200);
      const tampered = await fetch(url, { method: 'POST', headers, body: body.replace('evt_1', 'evt_2') });
      expect([tampered.status, await tampered.text()]).toEqual([400, 'mismatch']);
      expect(seen).toEqual(['webhook.test evt_1']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the Postman collection', () => {
  it('creates a quote and reads it back, with its own auth variables filled in', async () => {
    const collection = new Collection(JSON.parse(readFileSync(path.join(CLIENTS_DIR, COLLECTION_FILE), 'utf8')));
    const values = { baseUrl: svc.url, clientId: partner.clientId, apiKey: partner.apiKey };
    const requests = collectionRequests(collection);
    const send = (method: string, p: string, pathValues: Record<string, string> = {}) => {
      const { item } = requests.find((r) => r.method === method && r.path === p)!;
      const auth = item.request.auth ?? collection.auth;
      const headers: Record<string, string> = {};
      for (const h of item.request.headers.all()) if (!h.disabled) headers[h.key] = fill(String(h.value), values);
      if (authType(auth) === 'apikey') {
        const { key, value, in: where } = auth.parameters().toObject() as Record<string, string>;
        expect(where).toBe('header');
        headers[key!] = fill(value!, values);
      }
      const url = resolvedUrl(collection, item, values, pathValues);
      const body = item.request.body?.raw;
      return fetch(url, { method, headers, body: body === undefined ? undefined : fill(body, values) });
    };
    const created = await send('POST', '/partner/quotes');
    const quote = (await created.json()) as { id: string; object: string };
    expect(created.status, JSON.stringify(quote)).toBe(201);
    expect(quote.object).toBe('quote');
    const read = await send('GET', '/partner/quotes/{id}', { id: quote.id });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(quote.id);
  });
});
