/** A JSON object as the API answers it: a resource, or a request body. */
export type JsonObject = Record<string, unknown>;

/** An OpenAPI 3.1 document as data (server/http/openapi.ts generates the newest one from the zod schemas). */
export type OpenApiDocument = {
  info: { version: string; description?: string };
  components?: { schemas?: Record<string, JsonSchema> };
} & JsonObject;
export type JsonSchema = { properties?: Record<string, JsonSchema>; required?: string[]; description?: string } & JsonObject;

/** What a resource transform may read besides the resource: the stored record it was presented from (an event's row). */
export interface RenderContext {
  source?: unknown;
}

/**
 * One breaking change of the partner API, in one module (server/versions/changes/<version>-<name>.ts),
 * as Stripe's version changes and Convoy's request migrations: the code speaks only the newest version,
 * and every older one is reached by running, newest first, the changes made since it.
 *
 * - `requests` maps a request body of an operation (its route's operationId) from the shape before this
 *   change up to the shape after it, before the body is validated;
 * - `resources` maps a resource of a kind (its `object`: `event`, `order`, ...) from the shape after this
 *   change down to the shape before it, in responses and in webhook envelopes alike;
 * - `openapi` edits the document of the version after it into the document of the version before it.
 *
 * Every transform is a pure function of its input (and of the stored source it is given): no clock, no
 * randomness, no database, so a retried delivery renders the same bytes (server/events/render.ts).
 * `examples` are its shapes, before and after: GET /partner/versions shows them, and
 * test/unit/versions.test.ts fails a change whose transforms have none or do not map them as stated.
 */
export interface VersionChange {
  /** The version (a date, YYYY-MM-DD) that introduced it. */
  version: string;
  /** kebab-case, unique: the module's file is `<version>-<name>.ts`. */
  name: string;
  /** One line, as the changelog's entry reads. */
  title: string;
  /** What changed, as a partner reads it. */
  description: string;
  /** What a partner does to upgrade past it. */
  migration: string;
  requests?: Record<string, (body: JsonObject) => JsonObject>;
  resources?: Record<string, (resource: JsonObject, context: RenderContext) => JsonObject>;
  openapi?: (document: OpenApiDocument) => void;
  examples: ChangeExample[];
}

export type ChangeExample =
  | {
      /** A resource of this kind, as this change's version renders it (`after`) and the version before it (`before`). */
      resource: string;
      source?: unknown;
      before: JsonObject;
      after: JsonObject;
    }
  | {
      /** A request body of this operation, as the version before this change sends it (`before`) and as the code reads it (`after`). */
      request: string;
      before: JsonObject;
      after: JsonObject;
    };

export function defineChange(change: VersionChange): VersionChange {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(change.version)) throw new Error(`version change ${change.name}: version must be YYYY-MM-DD`);
  return change;
}
