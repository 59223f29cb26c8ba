import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../generated/openapi';
import { API_VERSION } from '../generated/version';

export type { components, operations, paths };
export { API_VERSION };
export { verifyWebhook, WebhookVerificationError, type VerifiedWebhook, type VerifyWebhookOptions, type WebhookFailure } from './webhooks';

/** A client of the Partner Delivery API: `client.POST('/partner/quotes', { body })` and so on, typed by the OpenAPI document. */
export type PartnerClient = Client<paths>;

export interface PartnerClientOptions {
  /** The service's base URL, e.g. `http://localhost:3000` (no trailing `/partner`). */
  baseUrl: string;
  /** Your credential's client id (`X-Client-ID`), as the console or `npm start` printed it. */
  clientId: string;
  /** Your credential's API key (`X-API-Key`); keep it on your servers. */
  apiKey: string;
  /**
   * The API version every request is made in (`X-Service-Version`, a date such as `2026-06-01`): by default
   * API_VERSION, the one this client's types describe, so that the answers are what the types say; `null`
   * leaves it to your environment's pin (GET /partner/api-version).
   */
  version?: string | null;
  /** Another fetch (a proxy's, a test's); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request besides the credential's. */
  headers?: Record<string, string>;
}

/**
 * A typed client with your credential on every request. Per request, pass what the document declares
 * in `params.header`: an `Idempotency-Key` on a POST you may retry, or another `X-Service-Version`.
 *
 * ```ts
 * const api = createPartnerClient({ baseUrl, clientId, apiKey, version: '2026-06-01' });
 * const { data, error } = await api.POST('/partner/quotes', {
 *   body: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } },
 *   params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
 * });
 * ```
 */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.fetch,
    headers: {
      ...options.headers,
      'X-Client-ID': options.clientId,
      'X-API-Key': options.apiKey,
      ...(options.version === null ? {} : { 'X-Service-Version': options.version ?? API_VERSION }),
    },
  });
}
