import { safeEqual } from '../auth/api-keys';
import { inAnyCidr, type Cidr } from '../auth/cidr';
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from '../auth/client-address';
import type { CredentialCache, VerifiedCredential } from '../auth/credential-cache';
import type { FailureThrottle } from '../auth/failure-throttle';
import { AppError, AuthenticationError, ForbiddenError } from '../errors';
import { newRequestId } from '../ids';
import { jsonAnswer, type Answer, type Exchange } from './exchange';
import { fallbackVersionOf } from './version-header';
import { logLine } from './serve-request';
import type { PartnerServices } from './services';

// Far longer than any key or client id we issue; anything longer is not worth hashing.
const MAX_HEADER_LENGTH = 256;

/**
 * X-API-Key + X-Client-ID → the credential, or the single 401 for every failure. An address that
 * failed too often meanwhile gets a 429 instead of a database query, unless its key is known good.
 */
export function authenticate(
  exchange: Exchange,
  { credentials, authFailures }: { credentials: CredentialCache; authFailures: FailureThrottle },
  client: { addressOf(): string },
): VerifiedCredential | Promise<VerifiedCredential> {
  const apiKey = exchange.header('x-api-key');
  const clientId = exchange.header('x-client-id');
  if (!apiKey || !clientId || apiKey.length > MAX_HEADER_LENGTH || clientId.length > MAX_HEADER_LENGTH) {
    throw new AuthenticationError();
  }
  const found = credentials.lookup(apiKey, () => {
    const wait = authFailures.retryAfter(client.addressOf());
    if (wait > 0) throw new AuthThrottledError(wait);
  });
  // A key in the credential cache is answered at once, without a promise (most requests).
  return found instanceof Promise ? found.then((credential) => verified(credential, clientId)) : verified(found, clientId);
}

function verified(credential: VerifiedCredential | null, clientId: string): VerifiedCredential {
  // Compare even when the lookup missed, so a miss and a mismatch take the same time.
  const matches = safeEqual(clientId, credential?.clientId ?? '');
  if (!credential || !matches || credential.revoked) throw new AuthenticationError();
  return credential;
}

const THROTTLED_MESSAGE = 'Too many failed authentications from this address: retry after the Retry-After delay.';

export class AuthThrottledError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', 'too_many_failed_authentications', THROTTLED_MESSAGE, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/**
 * The answer authenticate() would come to for an address over its failure budget whose key is not known good
 * (AuthThrottledError's 429), made without the request's other machinery: no deadline, no thrown error, no
 * rate limiter. Measured beside 1,500 wrong keys/s from one address (`npm run bench -- flood`), that
 * machinery was what a flood of already refused keys still cost a partner. Undefined: serve the request.
 */
export function refuseThrottled(exchange: Exchange, services: PartnerServices): Answer | undefined {
  const { authFailures, credentials } = services;
  if (!authFailures.refusing) return undefined;
  const apiKey = exchange.header('x-api-key');
  const clientId = exchange.header('x-client-id');
  // As authenticate(): a missing or overlong key is a 401 whatever the address did.
  if (!apiKey || !clientId || apiKey.length > MAX_HEADER_LENGTH || clientId.length > MAX_HEADER_LENGTH) return undefined;
  const address = clientAddressOf(exchange, services.trustedProxies);
  const wait = authFailures.retryAfter(address);
  if (wait === 0 || !credentials.wouldQuery(apiKey)) return undefined;
  const started = performance.now();
  const requestId = newRequestId();
  const answer = jsonAnswer(
    429,
    { error: { type: 'rate_limit_error', code: 'too_many_failed_authentications', message: THROTTLED_MESSAGE, request_id: requestId } },
    { 'retry-after': String(wait) },
  );
  answer.headers['x-service-version'] = fallbackVersionOf(exchange);
  answer.headers['x-request-id'] = requestId;
  const sampled = authFailures.fail(address);
  if (sampled.log) {
    logLine(
      services.log,
      'partner request',
      { requestId, fields: { client_address: address, failures_not_logged: sampled.suppressed }, log: true },
      exchange.method,
      exchange.target,
      429,
      started,
    );
  }
  return answer;
}

/** The client's address as the allowlist and the failure throttle see it. */
export function clientAddressOf(request: Exchange | Request, trustedProxies: Cidr[]): string {
  const header = (name: string) => ('header' in request ? request.header(name) : request.headers.get(name));
  return resolveClientAddress(header(CLIENT_ADDRESS_HEADER), header('x-forwarded-for'), trustedProxies)?.toString() ?? 'unknown';
}

/** 403 when the partner has an allowlist and the client address is outside it. Runs after auth. */
export function enforceAllowlist(exchange: Exchange, credential: VerifiedCredential, trustedProxies: Cidr[]): void {
  if (credential.allowlist.length === 0) return;
  const address = resolveClientAddress(exchange.header(CLIENT_ADDRESS_HEADER), exchange.header('x-forwarded-for'), trustedProxies);
  if (!address || !inAnyCidr(address, credential.allowlist)) {
    throw new ForbiddenError(
      'ip_not_allowed',
      `Requests from ${address?.toString() ?? 'this address'} are not allowed for this partner: the address is not on its IP allowlist.`,
    );
  }
}
