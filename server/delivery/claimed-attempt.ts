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
  deleted_at: string | Date | null;
  environment: Environment;
  secret_sealed: string;
  /** As stored: a list, or its JSON text (postgres.js hands jsonb back as text here). */
  previous_secrets: PreviousSecret[] | string;
  envelope: EventEnvelope | string;
  /** When the attempt was due (the event's creation for a first attempt, the retry time after): delivery lag is measured from it. */
  due_at?: string | Date | null;
}
