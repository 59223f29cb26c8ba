import type { Ctx } from '../context';
import { findPartnerOrThrow } from './find';
import { presentPartner, type PartnerSummary } from './present';

export async function getPartner({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<PartnerSummary> {
  return presentPartner(ctx.env, await findPartnerOrThrow(ctx, input.id));
}
