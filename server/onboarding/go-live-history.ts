import { desc, eq } from 'drizzle-orm';
import { goLiveDecisions } from '@/db/schema';
import type { Ctx } from '../context';
import type { GoLiveStatus } from '../partners/present';

export interface GoLiveHistoryEntry {
  id: string;
  from: GoLiveStatus;
  to: GoLiveStatus;
  note: string | null;
  actor: string;
  at: Date;
}

/** Every move of the partner's go-live review, newest first. */
export async function goLiveHistory({ ctx, input }: { ctx: Ctx; input: { partnerId: string } }): Promise<GoLiveHistoryEntry[]> {
  const rows = await ctx.db
    .select()
    .from(goLiveDecisions)
    .where(eq(goLiveDecisions.partnerId, input.partnerId))
    .orderBy(desc(goLiveDecisions.at), desc(goLiveDecisions.id));
  return rows.map((r) => ({ id: r.id, from: r.fromStatus, to: r.toStatus, note: r.note, actor: r.actor, at: r.at }));
}
