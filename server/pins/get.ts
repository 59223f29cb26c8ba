import type { TenantCtx } from '../context';
import { findPin } from './find';
import { pinEnvironment } from './pin';
import { presentPin } from './present';
import type { PinResource } from './schemas';

/** The caller's environment's pin (its request pinned it, if this is its first). */
export async function getPin({ ctx }: { ctx: TenantCtx }): Promise<PinResource> {
  await pinEnvironment({ ctx });
  return presentPin((await findPin(ctx))!);
}
