import { canonicalJson } from '../versions/canonical-json';
import { renderResponse } from '../versions/render';
import { presentEvent, type StoredEvent } from './present';

/**
 * The body of a delivery of `stored` in `version`: the same JSON as GET /partner/events/{id} answers in
 * that version, in canonical key order (canonical-json.ts). A pure function of the stored row and the
 * version: the row never changes and the version changes run no clock, randomness or query, so every
 * attempt that renders an event in one version sends the same bytes.
 */
export function renderEventBody(stored: StoredEvent, version: string): string {
  return canonicalJson(renderResponse(presentEvent(stored), version));
}
