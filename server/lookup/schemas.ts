import { z } from 'zod';
import type { Environment } from '../context';

/** Longer than any id or external id the platform prints (external ids: 64): such text names nothing. */
const LONGEST = 128;

/**
 * Text pasted from a ticket as an id: surrounding whitespace and one pair of quotes (straight, curly or
 * backticks, as chat tools and JSON bodies wrap it) go; what is left is looked up as it is.
 */
export const pastedId = z.string().transform((text) => {
  const trimmed = text.trim();
  const quoted = /^(["'`“‘])(.*)(["'`”’])$/su.exec(trimmed);
  return (quoted ? quoted[2]! : trimmed).trim();
});

/** Whether a pasted id could name anything: not empty, not longer than any id, no control characters. */
export function couldBeId(id: string): boolean {
  return id.length > 0 && id.length <= LONGEST && !/\p{C}/u.test(id);
}

export const ID_KINDS = [
  'order',
  'event',
  'delivery',
  'subscription',
  'replay',
  'partner',
  'credential',
  'quote',
  'failed_request',
] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** Which of the object's columns held the text. */
export const MATCHED_BY = ['id', 'external_id', 'client_id', 'request_id', 'quote_id'] as const;
export type MatchedBy = (typeof MATCHED_BY)[number];

export interface FailedRequestFacts {
  method: string;
  path: string;
  status: number;
  code: string;
  message: string;
  at: Date;
}

/** What an id names and where it lives. */
export interface IdMatch {
  kind: IdKind;
  /** The object's own id: the order's for an external id, a quote it used or the request that created it. */
  id: string;
  matchedBy: MatchedBy;
  partnerId: string;
  partnerName: string;
  /** null for a partner itself. */
  environment: Environment | null;
  /** A few words on the object: an order's status, an event's type, a subscription's URL. */
  label: string;
  /** A replay's, delivery's or subscription's subscription. */
  subscriptionId: string | null;
  /** A failed request: what it asked and what it got. */
  failure: FailedRequestFacts | null;
}
