import { newId } from '../ids';
import type { z } from 'zod';
import { partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { presentPartner, type PartnerSummary } from './present';
import { createPartnerInput } from './schemas';

export async function createPartner({ ctx, input }: { ctx: Ctx; input: z.input<typeof createPartnerInput> }): Promise<PartnerSummary> {
  const { name } = parseOrThrow(createPartnerInput, input);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.insert(partners).values({ id: newId(), name }).returning();
    await recordAudit(tx, { action: 'partner.create', targetType: 'partner', targetId: row!.id, after: { name } });
    return presentPartner(ctx.env, row!);
  });
}
