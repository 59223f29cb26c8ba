import type { quotes } from '@/db/schema';
import { livemode } from '../context';
import type { QuoteResource } from './schemas';

type QuoteRow = typeof quotes.$inferSelect;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function presentQuote(row: QuoteRow): QuoteResource {
  return {
    id: row.id,
    object: 'quote',
    livemode: livemode(row.environment),
    created: unix(row.createdAt),
    pickup: { lat: row.pickupLat, lng: row.pickupLng },
    dropoff: { lat: row.dropoffLat, lng: row.dropoffLng },
    distance_meters: row.distanceMeters,
    fee: { amount: row.feeAmount, currency: row.feeCurrency },
    duration_seconds: row.durationSeconds,
    pickup_eta: unix(row.pickupEta),
    dropoff_eta: unix(row.dropoffEta),
    expires_at: unix(row.expiresAt),
  };
}
