import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { allowlistEntries, credentials, partners } from '@/db/schema';
import type { Env } from '../config/env';
import type { Environment } from '../context';
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
}

interface Entry {
  value: VerifiedCredential | null;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Credential lookups by key hash, cached for CREDENTIAL_CACHE_TTL_MS (at most 5 s) so the hot path
 * does no database round trip for a known key, while a revocation or an allowlist edit reaches every
 * process within that TTL. Unknown keys are cached too (as null), so a flood of bad keys cannot
 * turn into a flood of queries. Concurrent misses for one key share one query.
 */
export class CredentialCache {
  private entries = new Map<string, Entry>();
  private inflight = new Map<string, Promise<VerifiedCredential | null>>();

  constructor(
    private readonly db: Database,
    private readonly env: Env,
  ) {}

  async lookup(apiKey: string): Promise<VerifiedCredential | null> {
    const keyHash = hashApiKey(apiKey);
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const pending = this.inflight.get(keyHash);
    if (pending) return pending;
    const query = this.load(keyHash).finally(() => this.inflight.delete(keyHash));
    this.inflight.set(keyHash, query);
    return query;
  }

  /** Drops every cached entry: used after an operator changes credentials in this same process. */
  clear(): void {
    this.entries.clear();
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
      })
      .from(credentials)
      .innerJoin(partners, eq(partners.id, credentials.partnerId))
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
        }
      : null;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { value, expiresAt: startedAt + this.env.CREDENTIAL_CACHE_TTL_MS });
    return value;
  }
}
