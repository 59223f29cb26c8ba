import type { PartnerCtx } from '../context';
import { findReplay } from './find';
import { presentReplay } from './present';
import type { ReplayResource } from './schemas';

export async function getReplay({ ctx, input }: { ctx: PartnerCtx; input: { id: string; replay_id: string } }): Promise<ReplayResource> {
  return presentReplay(ctx, await findReplay(ctx, input.id, input.replay_id));
}
