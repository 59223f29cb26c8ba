import type { Cidr } from '../auth/cidr';
import type { CredentialCache } from '../auth/credential-cache';
import type { FailureThrottle } from '../auth/failure-throttle';
import type { Deps } from '../context';
import type { RequestCounter } from '../onboarding/request-counts';
import type { RateLimiter } from '../rate-limit/limiter';

/**
 * What partner routes need of their process: the verbs' dependencies plus the front door's own
 * caches. server/boot makes it once; the front door hands it to every handler it calls.
 */
export interface PartnerServices extends Deps {
  credentials: CredentialCache;
  authFailures: FailureThrottle;
  rateLimiter: RateLimiter;
  trustedProxies: Cidr[];
  /** Authenticated requests per partner, environment and day, flushed in batches by server/boot. */
  requestCounts: RequestCounter;
  /** The OpenAPI document of the routes this process serves, in a version (server/http/openapi.ts). */
  openApiDocument(version: string): object;
}
