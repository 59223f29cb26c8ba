import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { allowlistEntries, apiVersionPins, credentials, partners } from '@/db/schema';
import type { Env } from '../config/env';
import type { Environment, PartnerActor } from '../context';
import { hashApiKey } from './api-keys';
import { parseCidr, type Cidr } from './cidr';

export interface VerifiedCredential {
  credentialId: string;
  clientId: string;
  partnerId: string;
  environment: Environment;
  revoked: boolean;
  allowlist: Cidr[];
  ratePerSecond: number;
  burst: number;
  /**
   * The version the credential's environment is pinned to (server/pins/); null until its first request
   * pins it, which then sets it here. A pin changed elsewhere reaches this process with the TTL.
   */
  apiVersion: string | null;
  /** The actor of this credential's requests, made on its first (server/http/partner-route.ts). */
  actor?: PartnerActor;
}

interface Entry {
  value: VerifiedCredential | null;
  expiresAt: number;
}

// Known keys and unknown ones are kept apart, each with its own bound: a flood of random keys fills
// only the unknown side, and can never evict a partner's real credential.
const MAX_KNOWN = 10_000;
const MAX_UNKNOWN = 10_000;

/**
 * Credential lookups by key hash, cached for CREDENTIAL_CACHE_TTL_MS (at most 5 s) so the hot path
 * does no database round trip for a known key, while a revocation or an allowlist edit reaches every
 * process within that TTL. Unknown keys are cached too (as null), so a flood of bad keys cannot
 * turn into a flood of queries. Concurrent misses for one key share one query.
 */
export class CredentialCache {
  private known = new Map<string, Entry>();
  private unknown = new Map<string, Entry>();
  private inflight = new Map<string, Promise<VerifiedCredential | null>>();

  constructor(
    private readonly db: Database,
    private readonly env: Env,
  ) {}

  /**
   * The key's credential: at once (no promise) when a live entry answers, the usual case; after the query otherwise.
   * `beforeQuery` runs only before querying for a key not known good, and may refuse (throw) instead.
   */
  lookup(apiKey: string, beforeQuery?: () => void): VerifiedCredential | null | Promise<VerifiedCredential | null> {
    const keyHash = hashApiKey(apiKey);
    const hit = this.known.get(keyHash) ?? this.unknown.get(keyHash);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    // A key known good only needs refreshing: the caller's refusal (the failure throttle) is for keys
    // that never were, so a partner behind the same address as a flood of wrong keys keeps working.
    if (!hit?.value) beforeQuery?.();
    const pending = this.inflight.get(keyHash);
    if (pending) return pending;
    const query = this.load(keyHash).finally(() => this.inflight.delete(keyHash));
    this.inflight.set(keyHash, query);
    return query;
  }

  /** Whether lookup(apiKey) would query (and so first run its `beforeQuery`): no live entry, and not a key known good. */
  wouldQuery(apiKey: string): boolean {
    const keyHash = hashApiKey(apiKey);
    const hit = this.known.get(keyHash) ?? this.unknown.get(keyHash);
    return !(hit && hit.expiresAt > Date.now()) && !hit?.value;
  }

  /** Drops every cached entry: used after an operator changes credentials in this same process. */
  clear(): void {
    this.known.clear();
    this.unknown.clear();
  }

  private async load(keyHash: string): Promise<VerifiedCredential | null> {
    // The TTL counts from when the query started: a row read just before a revocation committed
    // must not stay cached for a whole TTL after a slow query returns. A query that fails (the
    // database is unreachable) throws to the caller, a 503, and caches nothing.
    const startedAt = Date.now();
    const rows = await this.db
      .select({
        credentialId: credentials.id,
        clientId: credentials.clientId,
        partnerId: credentials.partnerId,
        environment: credentials.environment,
        revokedAt: credentials.revokedAt,
        rateLimitPerSecond: partners.rateLimitPerSecond,
        cidr: allowlistEntries.cidr,
        apiVersion: apiVersionPins.version,
      })
      .from(credentials)
      .innerJoin(partners, eq(partners.id, credentials.partnerId))
      .leftJoin(
        apiVersionPins,
        and(eq(apiVersionPins.partnerId, credentials.partnerId), eq(apiVersionPins.environment, credentials.environment)),
      )
      .leftJoin(allowlistEntries, and(eq(allowlistEntries.partnerId, credentials.partnerId)))
      .where(eq(credentials.keyHash, keyHash));
    const first = rows[0];
    const value: VerifiedCredential | null = first
      ? {
          credentialId: first.credentialId,
          clientId: first.clientId,
          partnerId: first.partnerId,
          environment: first.environment,
          revoked: first.revokedAt !== null,
          allowlist: rows.flatMap((r) => {
            const parsed = r.cidr ? parseCidr(r.cidr) : undefined;
            return parsed ? [parsed] : [];
          }),
          ratePerSecond: first.rateLimitPerSecond ?? this.env.RATE_LIMIT_PER_SECOND,
          burst: first.rateLimitPerSecond ? first.rateLimitPerSecond * 2 : this.env.RATE_LIMIT_BURST,
          apiVersion: first.apiVersion,
        }
      : null;
    const side = value ? this.known : this.unknown;
    if (side.size >= (value ? MAX_KNOWN : MAX_UNKNOWN)) {
      const oldest = side.keys().next().value;
      if (oldest !== undefined) side.delete(oldest);
    }
    // A key changes sides (created, or revoked and deleted): the other side's entry goes.
    (value ? this.unknown : this.known).delete(keyHash);
    side.set(keyHash, { value, expiresAt: startedAt + this.env.CREDENTIAL_CACHE_TTL_MS });
    return value;
  }
}
