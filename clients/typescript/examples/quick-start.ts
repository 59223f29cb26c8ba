// The client's README, as code: compiled by the repository's typecheck and run by
// test/clients/partner-client.test.ts. Run it against `npm start`:
//   PDP_CLIENT_ID=... PDP_API_KEY=... npx tsx clients/typescript/examples/quick-start.ts
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createPartnerClient, verifyWebhook, WebhookVerificationError, type PartnerClient } from '@partner-delivery/client';

// --- create a client
export function connect(env: Record<string, string | undefined> = process.env): PartnerClient {
  return createPartnerClient({
    baseUrl: env.PDP_BASE_URL ?? 'http://localhost:3000',
    clientId: env.PDP_CLIENT_ID!, // X-Client-ID, as `npm start` printed it
    apiKey: env.PDP_API_KEY!, // X-API-Key
  });
}

// --- a quote, then an order for it
export async function quoteAndOrder(api: PartnerClient) {
  const quote = await api.POST('/partner/quotes', {
    body: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } },
  });
  if (quote.error) throw new Error(`quote refused: ${quote.error.error.code}: ${quote.error.error.message}`);

  const order = await api.POST('/partner/orders', {
    body: { quote_id: quote.data.id, external_id: 'your-order-42' },
    // Sending the same key again (a retry after a timeout) answers the first order: never two orders.
    params: { header: { 'Idempotency-Key': randomUUID() } },
  });
  if (order.error) throw new Error(`order refused: ${order.error.error.code}: ${order.error.error.message}`);
  return order.data;
}

// --- verify a webhook: the raw body, the X-Service-Signature header, your secret(s)
export function receiveWebhooks(secrets: string[], onEvent: (type: string, id: string) => void): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const { event } = verifyWebhook(Buffer.concat(chunks), req.headers['x-service-signature'] as string | undefined, secrets);
        onEvent(event.type, event.id); // at least once: dedupe on event.id
        res.writeHead(200).end();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        res.writeHead(400).end(error.reason); // no_signature, malformed_header, mismatch, too_old or too_new
      }
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const order = await quoteAndOrder(connect());
  console.log(`order ${order.id}: ${order.status}`);
}
