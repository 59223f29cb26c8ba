import { sql } from 'drizzle-orm';
import { requestFailures } from '@/db/schema';
import type { Ctx } from '../context';
import { idFloor } from '../ids';

/**
 * At most this many failed requests are kept, whatever their age. Rows come in no faster than the partners'
 * rate limits let requests through (RATE_LIMIT_PER_SECOND, 100 a credential by default), so one client
 * failing every request for a week would otherwise leave 60 million; between two purges (15 minutes) the
 * table can still grow by that rate times 900 s.
 */
export const FAILED_REQUESTS_KEPT = 100_000;

/**
 * Deletes failed requests older than FAILED_REQUEST_RETENTION_DAYS and all but the newest FAILED_REQUESTS_KEPT.
 * Request ids are `req_` + a ULID, so both are ranges of the primary key: by age from the time's lowest id,
 * by count below the id FAILED_REQUESTS_KEPT rows down from the newest.
 */
export async function purgeOldFailedRequests({ ctx }: { ctx: Ctx }): Promise<number> {
  const oldest = `req_${idFloor(new Date(Date.now() - ctx.env.FAILED_REQUEST_RETENTION_DAYS * 86_400_000))}`;
  const deleted = await ctx.db
    .delete(requestFailures)
    .where(
      sql`${requestFailures.requestId} < greatest(${oldest}::text, (
        select ${requestFailures.requestId} from ${requestFailures}
        order by ${requestFailures.requestId} desc offset ${FAILED_REQUESTS_KEPT - 1} limit 1))`,
    )
    .returning({ id: requestFailures.requestId });
  return deleted.length;
}
