import { safeEqual } from '../auth/api-keys';
import { inAnyCidr, type Cidr } from '../auth/cidr';
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from '../auth/client-address';
import type { CredentialCache, VerifiedCredential } from '../auth/credential-cache';
import type { FailureThrottle } from '../auth/failure-throttle';
import { AppError, AuthenticationError, ForbiddenError } from '../errors';

// Far longer than any key or client id we issue; anything longer is not worth hashing.
const MAX_HEADER_LENGTH = 256;

/**
 * X-API-Key + X-Client-ID → the credential, or the single 401 for every failure. An address that
 * failed too often meanwhile gets a 429 instead of a database query, unless its key is known good.
 */
export async function authenticate(
  request: Request,
  { credentials, authFailures }: { credentials: CredentialCache; authFailures: FailureThrottle },
  addressOf: () => string,
): Promise<VerifiedCredential> {
  const apiKey = request.headers.get('x-api-key');
  const clientId = request.headers.get('x-client-id');
  if (!apiKey || !clientId || apiKey.length > MAX_HEADER_LENGTH || clientId.length > MAX_HEADER_LENGTH) {
    throw new AuthenticationError();
  }
  const credential = await credentials.lookup(apiKey, () => {
    const wait = authFailures.retryAfter(addressOf());
    if (wait > 0) throw new AuthThrottledError(wait);
  });
  // Compare even when the lookup missed, so a miss and a mismatch take the same time.
  const matches = safeEqual(clientId, credential?.clientId ?? '');
  if (!credential || !matches || credential.revoked) throw new AuthenticationError();
  return credential;
}

export class AuthThrottledError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      'rate_limited',
      'too_many_failed_authentications',
      'Too many failed authentications from this address: retry after the Retry-After delay.',
      {
        headers: { 'retry-after': String(retryAfterSeconds) },
      },
    );
  }
}

/** The client's address as the allowlist and the failure throttle see it. */
export function clientAddressOf(request: Request, trustedProxies: Cidr[]): string {
  return (
    resolveClientAddress(request.headers.get(CLIENT_ADDRESS_HEADER), request.headers.get('x-forwarded-for'), trustedProxies)?.toString() ??
    'unknown'
  );
}

/** 403 when the partner has an allowlist and the client address is outside it. Runs after auth. */
export function enforceAllowlist(request: Request, credential: VerifiedCredential, trustedProxies: Cidr[]): void {
  if (credential.allowlist.length === 0) return;
  const address = resolveClientAddress(request.headers.get(CLIENT_ADDRESS_HEADER), request.headers.get('x-forwarded-for'), trustedProxies);
  if (!address || !inAnyCidr(address, credential.allowlist)) {
    throw new ForbiddenError(
      'ip_not_allowed',
      `Requests from ${address?.toString() ?? 'this address'} are not allowed for this partner: the address is not on its IP allowlist.`,
    );
  }
}
