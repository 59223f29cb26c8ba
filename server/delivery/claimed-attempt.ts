import type { EventEnvelope, PreviousSecret } from '@/db/schema';
import type { Environment } from '../context';

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
  envelope: EventEnvelope;
  /** When the attempt was due (the event's creation for a first attempt, the retry time after): delivery lag is measured from it. */
  due_at: Date | null;
}

/**
 * A claimed attempt as the claiming statements read it: jsonb comes back as text where Drizzle set
 * the shared client to hand json back unparsed, and times as text from a raw statement.
 */
export type ClaimedAttemptRow = Omit<ClaimedAttempt, 'deleted_at' | 'previous_secrets' | 'envelope' | 'due_at'> & {
  deleted_at: string | Date | null;
  previous_secrets: PreviousSecret[] | string;
  envelope: EventEnvelope | string;
  due_at: string | Date | null;
};

/** Parses a row once, where it is read (claim.ts, fan-out.ts): everything after sees typed values. */
export function claimedAttemptOf(row: ClaimedAttemptRow): ClaimedAttempt {
  return {
    ...row,
    deleted_at: dateOf(row.deleted_at),
    previous_secrets:
      typeof row.previous_secrets === 'string' ? (JSON.parse(row.previous_secrets) as PreviousSecret[]) : row.previous_secrets,
    // Parsed as stored: JSON.parse keeps the stored key order, so the body signed and sent is the envelope as written.
    envelope: typeof row.envelope === 'string' ? (JSON.parse(row.envelope) as EventEnvelope) : row.envelope,
    due_at: dateOf(row.due_at),
  };
}

function dateOf(value: string | Date | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}
