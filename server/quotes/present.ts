import type { quotes } from '@/db/schema';
import { livemode } from '../context';
import { unixSeconds } from '../time';
import type { QuoteResource } from './schemas';

export type QuoteRow = typeof quotes.$inferSelect;

export function presentQuote(row: QuoteRow): QuoteResource {
  return {
    id: row.id,
    object: 'quote',
    livemode: livemode(row.environment),
    created: unixSeconds(row.createdAt),
    pickup: { lat: row.pickupLat, lng: row.pickupLng },
    dropoff: { lat: row.dropoffLat, lng: row.dropoffLng },
    distance_meters: row.distanceMeters,
    fee: { amount: row.feeAmount, currency: row.feeCurrency },
    duration_seconds: row.durationSeconds,
    pickup_eta: unixSeconds(row.pickupEta),
    dropoff_eta: unixSeconds(row.dropoffEta),
    expires_at: unixSeconds(row.expiresAt),
  };
}
