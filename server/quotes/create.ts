import { newId } from '../ids';
import { quotes } from '@/db/schema';
import type { PartnerCtx } from '../context';
import { estimate } from './pricing';
import { presentQuote } from './present';
import type { CreateQuoteInput, QuoteResource } from './schemas';

export async function createQuote({ ctx, input }: { ctx: PartnerCtx; input: CreateQuoteInput }): Promise<QuoteResource> {
  const e = estimate(input.pickup, input.dropoff, ctx.env);
  // Whole seconds: every time in the API is integer Unix seconds, and a stored millisecond would not round-trip.
  const now = Math.floor(Date.now() / 1000) * 1000;
  const pickupEta = now + e.pickupLeadSeconds * 1000;
  const [row] = await ctx.db
    .insert(quotes)
    .values({
      id: newId(),
      partnerId: ctx.actor.partnerId,
      environment: ctx.actor.environment,
      pickupLat: input.pickup.lat,
      pickupLng: input.pickup.lng,
      dropoffLat: input.dropoff.lat,
      dropoffLng: input.dropoff.lng,
      distanceMeters: e.distanceMeters,
      feeAmount: e.feeAmount,
      feeCurrency: e.currency,
      durationSeconds: e.durationSeconds,
      pickupEta: new Date(pickupEta),
      dropoffEta: new Date(pickupEta + e.durationSeconds * 1000),
      expiresAt: new Date(now + ctx.env.QUOTE_TTL_SECONDS * 1000),
      createdAt: new Date(now),
    })
    .returning();
  return presentQuote(row!);
}
