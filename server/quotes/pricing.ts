import type { Env } from '../config/env';
import { UnprocessableError } from '../errors';
import { greatCircleMeters, type LatLng } from '../geo/distance';

export interface Estimate {
  distanceMeters: number;
  feeAmount: number;
  currency: string;
  durationSeconds: number;
  pickupLeadSeconds: number;
}

/** Prices a trip from configuration (base fee + per started 1/100 km), or refuses it as too long or too short. */
export function estimate(pickup: LatLng, dropoff: LatLng, env: Env): Estimate {
  const distanceMeters = Math.round(greatCircleMeters(pickup, dropoff));
  if (distanceMeters > env.SERVICE_RADIUS_METERS) {
    throw new UnprocessableError(
      'distance_too_long',
      `The trip is ${distanceMeters} m; the service radius is ${env.SERVICE_RADIUS_METERS} m.`,
      'dropoff',
    );
  }
  if (distanceMeters < env.MIN_DISTANCE_METERS) {
    throw new UnprocessableError(
      'distance_too_short',
      `The trip is ${distanceMeters} m; the minimum is ${env.MIN_DISTANCE_METERS} m.`,
      'dropoff',
    );
  }
  const metersPerSecond = (env.COURIER_SPEED_KMH * 1000) / 3600;
  return {
    distanceMeters,
    feeAmount: env.QUOTE_BASE_FEE + Math.ceil((env.QUOTE_FEE_PER_KM * distanceMeters) / 1000),
    currency: env.QUOTE_CURRENCY,
    durationSeconds: Math.ceil(distanceMeters / metersPerSecond),
    pickupLeadSeconds: env.PICKUP_LEAD_SECONDS,
  };
}
