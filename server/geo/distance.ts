export interface LatLng {
  lat: number;
  lng: number;
}

// IUGG mean Earth radius; the haversine error against the ellipsoid (< 0.5 %) is far below pricing granularity.
const EARTH_RADIUS_METERS = 6_371_008.8;

/** Great-circle distance (haversine), in meters. */
export function greatCircleMeters(a: LatLng, b: LatLng): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
}
