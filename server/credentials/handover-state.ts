import { desc, inArray } from 'drizzle-orm';
import { credentialHandovers } from '@/db/schema';
import type { Ctx } from '../context';

/** What operators see of a credential's latest hand-over link: never its token or the key. */
export interface HandoverState {
  credentialId: string;
  email: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  endedAt: Date | null;
}

/** The latest hand-over of each of several credentials (one query for a page of them); none when never handed over. */
export async function latestHandovers({ ctx, input }: { ctx: Ctx; input: { credentialIds: readonly string[] } }) {
  const t = credentialHandovers;
  const rows = await ctx.db
    .selectDistinctOn([t.credentialId], {
      credentialId: t.credentialId,
      email: t.email,
      createdAt: t.createdAt,
      expiresAt: t.expiresAt,
      usedAt: t.usedAt,
      endedAt: t.endedAt,
    })
    .from(t)
    .where(inArray(t.credentialId, [...input.credentialIds]))
    .orderBy(t.credentialId, desc(t.id));
  return new Map<string, HandoverState>(rows.map((r) => [r.credentialId, r]));
}
