import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket has a token again (0 when allowed). */
  resetSeconds: number;
}

interface Local {
  tokens: number;
  leasedAt: number;
  bucketAfterLease: number;
  deniedUntil: number;
  lease?: Promise<void>;
}

// Leased tokens not spent within this time are dropped, so a process that goes quiet cannot later
// add a stale batch on top of a refilled bucket.
const LEASE_LIFETIME_MS = 1000;

/**
 * Token bucket per credential, shared through Postgres across web processes. Each process leases
 * a batch (a tenth of the per-second rate) with one upsert and spends it locally. Leased tokens
 * leave the shared bucket, so all processes together never admit more than the bucket grants;
 * the tolerance is one unspent batch per process (under-admission, or a burst of at most that
 * much over a full bucket).
 */
export class RateLimiter {
  private local = new Map<string, Local>();

  constructor(private readonly db: Database) {}

  /**
   * The decision at once while this process holds a token, the usual case (no promise: a partner request awaits
   * nothing here); after a lease otherwise.
   */
  take(clientId: string, ratePerSecond: number, burst: number): RateDecision | Promise<RateDecision> {
    let state = this.local.get(clientId);
    if (!state) {
      state = { tokens: 0, leasedAt: 0, bucketAfterLease: burst, deniedUntil: 0 };
      this.local.set(clientId, state);
    }
    const now = Date.now();
    if (now - state.leasedAt > LEASE_LIFETIME_MS) state.tokens = 0;
    return state.tokens >= 1 ? this.spend(state, ratePerSecond) : this.takeLeased(clientId, state, ratePerSecond, burst, now);
  }

  private async takeLeased(clientId: string, state: Local, ratePerSecond: number, burst: number, now: number): Promise<RateDecision> {
    while (state.tokens < 1) {
      if (state.deniedUntil > now) return this.denied(ratePerSecond, state.deniedUntil - now);
      state.lease ??= this.lease(clientId, state, ratePerSecond, burst).finally(() => (state.lease = undefined));
      await state.lease;
      if (state.tokens < 1 && state.deniedUntil > Date.now()) return this.denied(ratePerSecond, state.deniedUntil - Date.now());
    }
    return this.spend(state, ratePerSecond);
  }

  private spend(state: Local, ratePerSecond: number): RateDecision {
    state.tokens -= 1;
    return {
      allowed: true,
      limit: ratePerSecond,
      remaining: Math.max(0, Math.floor(state.tokens + state.bucketAfterLease)),
      resetSeconds: 0,
    };
  }

  private denied(limit: number, waitMs: number): RateDecision {
    return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  private async lease(clientId: string, state: Local, rate: number, burst: number): Promise<void> {
    const batch = Math.max(1, Math.floor(rate / 10));
    // available = min(burst, tokens + elapsed * rate); grant = min(batch, floor(available)).
    const available = sql`least(${burst}::float8, b.tokens + extract(epoch from (clock_timestamp() - b.refilled_at)) * ${rate}::float8)`;
    const rows = await this.db.execute<{ tokens: number; last_grant: number }>(sql`
      insert into rate_limit_buckets as b (client_id, tokens, last_grant, refilled_at)
      values (${clientId}, ${burst - Math.min(batch, burst)}::float8, ${Math.min(batch, burst)}::float8, clock_timestamp())
      on conflict (client_id) do update set
        last_grant = least(${batch}::float8, floor(${available})),
        tokens = ${available} - least(${batch}::float8, floor(${available})),
        refilled_at = clock_timestamp()
      returning tokens, last_grant`);
    const row = rows[0];
    const granted = Number(row?.last_grant ?? 0);
    const left = Number(row?.tokens ?? 0);
    state.leasedAt = Date.now();
    state.tokens += granted;
    state.bucketAfterLease = left;
    // Nothing granted: no token until the bucket refills to one; remember that instead of asking again.
    state.deniedUntil = granted > 0 ? 0 : Date.now() + Math.ceil(((1 - left) / rate) * 1000);
  }
}
