import type { JsonObject, OpenApiDocument, VersionChange } from './change';
import { CHANGES } from './registry';

/** The changes a request of `version` passes through going up to the latest, oldest first (`all`: the registry's; tests pass their own). */
function after(version: string, all: readonly VersionChange[]): VersionChange[] {
  return all.filter((c) => c.version > version);
}

// The stored record a presented resource came from (an event's row), for the changes that need more than
// the newest shape holds to render an older one (the first version's events embed the order's whole
// status_history, which the newest shape leaves out). Held by identity: nothing of it reaches the JSON.
const sources = new WeakMap<object, unknown>();

/** Marks `resource` as presented from `source`; what an older version's rendering reads it from. */
export function withSource<T extends object>(resource: T, source: unknown): T {
  sources.set(resource, source);
  return resource;
}

// Where a resource holds other resources. The walk looks only there, never into partner data (metadata
// may hold anything, an `object` key included), so only what the API presented is ever transformed.
const NESTED: Record<string, readonly (readonly string[])[]> = {
  list: [['data']],
  event: [['data', 'object']],
  event_type: [['example']],
};

// Resources that say which version rendered them: an event's `api_version` is the version it is rendered
// in, whichever change introduced the field.
const NAMES_ITS_VERSION = new Set(['event']);

/**
 * A response body (or an event envelope) in `version`: every resource in it, children first, through the
 * changes made since `version`, newest first. The latest version is the body as it is.
 */
export function renderResponse<T>(value: T, version: string, all: readonly VersionChange[] = CHANGES): T {
  const changes = after(version, all)
    .filter((c) => c.resources)
    .reverse();
  if (changes.length === 0) return value;
  return renderNode(value, changes, version) as T;
}

function renderNode(value: unknown, changes: readonly VersionChange[], version: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renderNode(v, changes, version));
  if (!isObject(value) || typeof value.object !== 'string') return value;
  const kind = value.object;
  let node = value;
  for (const path of NESTED[kind] ?? []) node = updateAt(node, path, (child) => renderNode(child, changes, version));
  const context = { source: sources.get(value) };
  for (const change of changes) {
    const down = change.resources?.[kind];
    if (down) node = down(node, context);
  }
  return NAMES_ITS_VERSION.has(kind) && 'api_version' in node ? { ...node, api_version: version } : node;
}

/** A request body sent in `version`, as the code reads it: through every change since, oldest first. */
export function upgradeRequest(operationId: string, body: unknown, version: string, all: readonly VersionChange[] = CHANGES): unknown {
  if (!isObject(body)) return body;
  let current = body;
  for (const change of after(version, all)) {
    const up = change.requests?.[operationId];
    if (up) current = up(current);
  }
  return current;
}

/** The OpenAPI document of `version`, from the latest's: a copy, through every change since, newest first. */
export function openApiDocumentFor(latest: OpenApiDocument, version: string, all: readonly VersionChange[] = CHANGES): OpenApiDocument {
  const document = structuredClone(latest);
  for (const change of after(version, all).reverse()) change.openapi?.(document);
  document.info.version = version;
  return document;
}

function updateAt(node: JsonObject, path: readonly string[], fn: (child: unknown) => unknown): JsonObject {
  const [head, ...rest] = path as [string, ...string[]];
  if (!(head in node)) return node;
  const child = node[head];
  const next = rest.length === 0 ? fn(child) : isObject(child) ? updateAt(child, rest, fn) : child;
  return next === child ? node : { ...node, [head]: next };
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
