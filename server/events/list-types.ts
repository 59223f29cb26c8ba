import { EVENT_CATALOG } from './catalog';
import { exampleEvent } from './examples';
import { presentEvent } from './present';

export function listEventTypes() {
  return {
    object: 'list' as const,
    data: EVENT_CATALOG.map((e) => ({
      object: 'event_type' as const,
      type: e.type,
      description: e.description,
      example: presentEvent(exampleEvent(e.type)),
    })),
    has_more: false,
  };
}
