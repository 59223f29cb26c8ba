import type { apiVersionPins } from '@/db/schema';
import { livemode } from '../context';
import { unixSeconds } from '../time';
import { LATEST_VERSION } from '../versions/registry';
import { rollbackUntil } from './rollback-window';
import type { PinResource } from './schemas';

export type PinRow = typeof apiVersionPins.$inferSelect;

export function presentPin(row: PinRow): PinResource {
  const until = rollbackUntil(row);
  return {
    object: 'api_version_pin',
    livemode: livemode(row.environment),
    version: row.version,
    previous_version: row.previousVersion,
    pinned_at: unixSeconds(row.pinnedAt),
    changed_at: row.changedAt ? unixSeconds(row.changedAt) : null,
    rollback_until: until ? unixSeconds(until) : null,
    latest_version: LATEST_VERSION,
  };
}
