import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks form, so both verifiers take it as it is. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** Spec part 5: HMAC-SHA256 over `<t>.<raw body>`, keyed with the secret string exactly as returned (prefix included), lowercase hex. */
export function serviceSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** Standard Webhooks: HMAC-SHA256 over `<msg id>.<t>.<body>`, keyed with the base64-decoded bytes after `whsec_`, base64. */
export function standardSignature(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
}

export interface SignedHeadersInput {
  /** The current secret first; during a rotation's overlap, the previous one after it. */
  secrets: readonly string[];
  eventId: string;
  eventType: string;
  /** The version the body is rendered in. */
  apiVersion: string;
  timestamp: number;
  body: string;
  userAgent: string;
}

/** Every header a delivery carries; the body signed is the body sent, byte for byte. */
export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const { secrets, eventId, timestamp, body } = input;
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'x-service-event': input.eventType,
    'x-service-event-id': eventId,
    'x-service-version': input.apiVersion,
    'x-service-signature': [`t=${timestamp}`, ...secrets.map((s) => `v1=${serviceSignature(s, timestamp, body)}`)].join(','),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => `v1,${standardSignature(s, eventId, timestamp, body)}`).join(' '),
  };
}
