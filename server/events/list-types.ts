import { EVENT_CATALOG } from './catalog';
import { exampleEvent } from './examples';
import { presentEvent } from './present';

// The catalog is the same for every request and every partner: built once, frozen (so the answer's text is
// written once per version too, partner-route.ts). Built per request it was ~300 us of the 1,382 us of CPU
// a GET /partner/event-types took, and its JSON text another ~170 us (`npm run bench -- overhead --profile`).
let built: ReturnType<typeof build> | undefined;

export function listEventTypes() {
  return (built ??= deepFreeze(build()));
}

function build() {
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
