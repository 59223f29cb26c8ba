import { test as base, expect, type APIRequestContext } from '@playwright/test';

// The partner REST API as the specs call it, from the test process (loopback), as a partner's server
// would: the credential's headers written once, every answer typed, the expected status checked with
// the body in the failure message. dub's playwright/api/fixtures.ts is the model.

/** A partner credential: the demo partner's (what npm start printed) unless a spec got another one. */
export interface PartnerCredential {
  clientId: string;
  apiKey: string;
}

export const demoPartner = (): PartnerCredential => ({ clientId: process.env.E2E_CLIENT_ID!, apiKey: process.env.E2E_API_KEY! });

/** A quote request both ends of which are in Manhattan. */
export const QUOTE = { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a spec reads the fields it asserts on
type Body = any;

export class PartnerApi {
  constructor(
    private readonly request: APIRequestContext,
    private readonly credential: PartnerCredential = demoPartner(),
  ) {}

  /** The same API with another credential (one a spec was handed over, say). */
  as(credential: PartnerCredential): PartnerApi {
    return new PartnerApi(this.request, credential);
  }

  /** Any call; the status, the JSON body and the X-Request-Id, whatever the status. */
  async send(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    data?: unknown,
  ): Promise<{ status: number; body: Body; requestId: string }> {
    const res = await this.request.fetch(path, {
      method,
      headers: { 'content-type': 'application/json', 'x-client-id': this.credential.clientId, 'x-api-key': this.credential.apiKey },
      ...(data === undefined ? {} : { data }),
    });
    return { status: res.status(), body: await res.json(), requestId: res.headers()['x-request-id']! };
  }

  /** A POST that must answer `status` (201 by default): its body. */
  async post(path: string, data: unknown = {}, status = 201): Promise<Body> {
    const { status: got, body } = await this.send('POST', path, data);
    expect(got, JSON.stringify(body)).toBe(status);
    return body;
  }

  /** A quote, then an order from it (with `extra` fields such as external_id): the order. */
  async newOrder(extra: Record<string, unknown> = {}): Promise<Body> {
    const quote = await this.post('/partner/quotes', QUOTE);
    return this.post('/partner/orders', { quote_id: quote.id, ...extra });
  }
}

/** Playwright's test with `partnerApi`: the demo partner's API over the test's request context. */
export const test = base.extend<{ partnerApi: PartnerApi }>({
  partnerApi: async ({ request }, use) => use(new PartnerApi(request)),
});
export { expect };
