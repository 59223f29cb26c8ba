import type { EventEnvelope, PreviousSecret, webhookSubscriptions } from '@/db/schema';
import type { Environment } from '../context';
import type { StoredEvent } from '../events/present';
import { renderEventBody } from '../events/render';

/**
 * One attempt a worker holds: the delivery's row is claimed (`claimed_until` in the future, its
 * `attempts` counting this one), so no other worker sends it until the claim lapses. It carries
 * everything the attempt needs, so sending it reads nothing more from the database.
 */
export interface ClaimedAttempt {
  /** The delivery's id. */
  id: string;
  subscription_id: string;
  attempt: number;
  trigger: 'scheduled' | 'manual' | 'replay';
  /** Who asked for a manual or replay attempt; absent when scheduled. */
  requested_by?: string;
  event_type: string;
  url: string;
  sub_status: 'enabled' | 'disabled';
  deleted_at: Date | null;
  environment: Environment;
  secret_sealed: string;
  previous_secrets: PreviousSecret[];
  event_id: string;
  /** The version the delivery renders its event in (webhook_deliveries.api_version). */
  api_version: string;
  /** The event rendered in that version: the exact bytes signed and sent (server/events/render.ts). */
  body: string;
  /** When the attempt was due (the event's creation for a first attempt, the retry time after): delivery lag is measured from it. */
  due_at: Date | null;
}

/**
 * A claimed attempt as the claiming statements read it, with its event as stored: jsonb comes back as
 * text where Drizzle set the shared client to hand json back unparsed, and times as text from a raw
 * statement.
 */
export type ClaimedAttemptRow = Omit<ClaimedAttempt, 'deleted_at' | 'previous_secrets' | 'body' | 'due_at'> & {
  deleted_at: string | Date | null;
  previous_secrets: PreviousSecret[] | string;
  envelope: EventEnvelope | string;
  previous_attributes: Record<string, unknown> | string | null;
  due_at: string | Date | null;
};

/** What a claimed attempt carries of its subscription, from a subscription row in hand (fan-out, a replay's page). */
export function subscriptionFields(s: typeof webhookSubscriptions.$inferSelect) {
  return {
    subscription_id: s.id,
    url: s.url,
    sub_status: s.status,
    deleted_at: s.deletedAt,
    environment: s.environment,
    secret_sealed: s.secretSealed,
    previous_secrets: s.previousSecrets,
  };
}

export type BodyRenderer = (stored: StoredEvent, eventId: string, version: string) => string;

/**
 * Renders each (event, version) once, however many attempts of a batch send it (fan-out: one event to
 * every subscription on that version). What it answers for a pair is what renderEventBody answers, as
 * every attempt's body is, so sharing it changes no byte.
 */
export function bodyRenderer(): BodyRenderer {
  const bodies = new Map<string, string>();
  return (stored, eventId, version) => {
    const key = `${eventId}:${version}`;
    let body = bodies.get(key);
    if (body === undefined) bodies.set(key, (body = renderEventBody(stored, version)));
    return body;
  };
}

/** Parses a row once, where it is read (claim.ts, fan-out.ts): everything after sees typed values and the body to send. */
export function claimedAttemptOf(row: ClaimedAttemptRow, render: BodyRenderer = bodyRenderer()): ClaimedAttempt {
  const { envelope, previous_attributes, deleted_at, previous_secrets, due_at, ...fields } = row;
  const stored = { envelope: parsed(envelope), previous_attributes: previous_attributes === null ? null : parsed(previous_attributes) };
  return {
    ...fields,
    body: render(stored, row.event_id, row.api_version),
    deleted_at: dateOf(deleted_at),
    previous_secrets: parsed(previous_secrets),
    due_at: dateOf(due_at),
  };
}

// Parsed as stored: JSON.parse keeps jsonb's key order, which the rendered body keeps too (canonical-json.ts).
function parsed<T extends object>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

function dateOf(value: string | Date | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}
