import type { EventEnvelope } from '@/db/schema';
import { LATEST_VERSION } from '../versions/registry';
import { withSource } from '../versions/render';
import type { EventResource } from './schemas';

/** An event as stored (server/events/emit.ts): what every version renders it from. */
export interface StoredEvent {
  envelope: EventEnvelope;
  previous_attributes: Record<string, unknown> | null;
}

/**
 * An event in the latest version: the stored envelope, its order without `status_history`, with the
 * fields the event changed and their old values (`data.previous_attributes`). Older versions are rendered
 * from it and from the stored row it keeps (server/versions/render.ts).
 */
export function presentEvent(stored: StoredEvent): EventResource {
  const { envelope } = stored;
  const { status_history: history, ...rest } = envelope.data.object;
  const isOrder = rest.object === 'order';
  const previous = stored.previous_attributes ?? (isOrder ? previousFromHistory(envelope.type, history) : null);
  return withSource(
    {
      id: envelope.id,
      object: 'event',
      api_version: LATEST_VERSION,
      created: envelope.created,
      livemode: envelope.livemode,
      type: envelope.type,
      data: { object: isOrder ? rest : envelope.data.object, ...(previous ? { previous_attributes: previous } : {}) },
    },
    stored,
  );
}

/**
 * An order event written before previous_attributes were recorded says what its own history says of the
 * state before it: the status and when it was entered (`updated`: every move stamps both). Rendering
 * from the stored row alone keeps it deterministic.
 */
function previousFromHistory(type: string, history: unknown): Record<string, unknown> | null {
  if (type === 'order.created' || !Array.isArray(history) || history.length < 2) return null;
  const before = history.at(-2) as { status?: unknown; at?: unknown };
  return { status: before.status, updated: before.at };
}
