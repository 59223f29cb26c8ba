import type { TenantCtx } from '../context';
import { findReplay } from './find';
import { presentReplay } from './present';
import type { ReplayResource } from './schemas';

export async function getReplay({ ctx, input }: { ctx: TenantCtx; input: { id: string; replay_id: string } }): Promise<ReplayResource> {
  return presentReplay(ctx, await findReplay(ctx, input.id, input.replay_id));
}
