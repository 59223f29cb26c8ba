import type { partners } from '@/db/schema';
import type { Env } from '../config/env';

export type PartnerRow = typeof partners.$inferSelect;
export type GoLiveStatus = PartnerRow['goLiveStatus'];

/** A partner as operators see it: the go-live review and the rate limit its credentials get. */
export interface PartnerSummary {
  id: string;
  name: string;
  createdAt: Date;
  goLive: { partnerId: string; status: GoLiveStatus; note: string | null };
  rateLimit: RateLimit;
}

export interface RateLimit {
  partnerId: string;
  /** The partner's own limit; null when it has the platform default. */
  override: number | null;
  /** What its credentials get, per second each. */
  perSecond: number;
  burst: number;
}

/** The limit the partner API applies (server/auth/credential-cache.ts): the override with twice its burst, or the platform's. */
export function rateLimitOf(
  env: Pick<Env, 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST'>,
  partnerId: string,
  override: number | null,
): RateLimit {
  return {
    partnerId,
    override,
    perSecond: override ?? env.RATE_LIMIT_PER_SECOND,
    burst: override ? override * 2 : env.RATE_LIMIT_BURST,
  };
}

export function presentPartner(env: Pick<Env, 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST'>, row: PartnerRow): PartnerSummary {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.createdAt,
    goLive: { partnerId: row.id, status: row.goLiveStatus, note: row.goLiveNote },
    rateLimit: rateLimitOf(env, row.id, row.rateLimitPerSecond),
  };
}
