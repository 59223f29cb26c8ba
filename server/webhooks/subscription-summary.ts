import type { Environment } from '../context';
import type { SubscriptionRow } from './present';

/** A subscription as operators see it: its secrets, sealed or not, never leave the database. */
export interface SubscriptionSummary {
  id: string;
  partnerId: string;
  environment: Environment;
  url: string;
  description: string | null;
  eventFilters: string[];
  /** The version its deliveries are rendered in. */
  apiVersion: string;
  status: SubscriptionRow['status'];
  disabledReason: string | null;
  /** First failure since the last success; null while it succeeds. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export function summariseSubscription(row: SubscriptionRow): SubscriptionSummary {
  return {
    id: row.id,
    partnerId: row.partnerId,
    environment: row.environment,
    url: row.url,
    description: row.description,
    eventFilters: row.eventFilters,
    apiVersion: row.apiVersion,
    status: row.status,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
