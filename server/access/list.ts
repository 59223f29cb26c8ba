import { and, desc, eq, inArray, lt } from 'drizzle-orm';
import { accessRequests } from '@/db/schema';
import type { Ctx } from '../context';
import { ACCESS_DECIDED_STATUSES, type AccessListStatus } from './schemas';

export interface AccessRequestSummary {
  id: string;
  company: string;
  contactName: string;
  contactEmail: string;
  website: string | null;
  expectedMonthlyOrders: number | null;
  useCase: string;
  status: AccessListStatus;
  createdAt: Date;
  confirmedAt: Date | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  reason: string | null;
  partnerId: string | null;
}

/**
 * Confirmed requests (an unconfirmed one is nobody's yet), newest first, `first` plus one to tell
 * whether more follow. By status over the (status, id) index.
 */
export async function listAccessRequests({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { status?: AccessListStatus; first: number; after?: string };
}): Promise<AccessRequestSummary[]> {
  const rows = await ctx.db
    .select()
    .from(accessRequests)
    .where(
      and(
        input.status ? eq(accessRequests.status, input.status) : inArray(accessRequests.status, [...ACCESS_DECIDED_STATUSES]),
        input.after ? lt(accessRequests.id, input.after) : undefined,
      ),
    )
    .orderBy(desc(accessRequests.id))
    .limit(input.first + 1);
  return rows.map(presentAccessRequest);
}

/** What operators see of a request: never its token hash or the address it came from. */
export function presentAccessRequest(row: typeof accessRequests.$inferSelect): AccessRequestSummary {
  return {
    id: row.id,
    company: row.company,
    contactName: row.contactName,
    contactEmail: row.contactEmail,
    website: row.website,
    expectedMonthlyOrders: row.expectedMonthlyOrders,
    useCase: row.useCase,
    status: row.status as AccessListStatus,
    createdAt: row.createdAt,
    confirmedAt: row.confirmedAt,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    reason: row.reason,
    partnerId: row.partnerId,
  };
}
