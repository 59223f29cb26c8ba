import { allowlistEntries } from '@/db/schema';
import type { Ctx } from '../context';
import { pagePerOwner, type OwnedPage } from '../owned-page';

export interface AllowlistEntrySummary {
  id: string;
  partnerId: string;
  cidr: string;
  label: string | null;
  createdAt: Date;
}

/** The IP allowlists of several partners at once, newest entry first, up to `limit` each. */
export async function listAllowlistEntries({ ctx, input }: { ctx: Ctx; input: OwnedPage }): Promise<Map<string, AllowlistEntrySummary[]>> {
  const t = allowlistEntries;
  const fields = { id: t.id, partnerId: t.partnerId, cidr: t.cidr, label: t.label, createdAt: t.createdAt };
  return pagePerOwner<AllowlistEntrySummary>(ctx, { table: t, fields, ownerKey: 'partnerId' }, input);
}
