import { and, eq } from 'drizzle-orm';
import { apiVersionPins } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { findPartnerOrThrow } from '../partners/find';
import { findPin } from './find';
import { presentPin } from './present';
import { rollbackRefusal } from './rollback-window';
import type { PinResource } from './schemas';

/** Returns an environment's pin to the version its last upgrade left, within ROLLBACK_HOURS of it (rollback-window.ts). */
export async function rollbackPin({ ctx }: { ctx: TenantCtx }): Promise<PinResource> {
  const { partnerId, environment } = ctx.actor;
  return withTransaction(ctx, async (tx) => {
    await findPartnerOrThrow(tx, partnerId);
    const pin = await findPin(tx, true);
    const refusal = rollbackRefusal(pin, new Date());
    if (!pin || refusal) throw refusal;
    const [row] = await tx.db
      .update(apiVersionPins)
      .set({ version: pin.previousVersion!, previousVersion: null, changedAt: new Date() })
      .where(and(eq(apiVersionPins.partnerId, partnerId), eq(apiVersionPins.environment, environment)))
      .returning();
    await recordAudit(tx, {
      action: 'api_version.rollback',
      targetType: 'partner',
      targetId: partnerId,
      before: { environment, version: pin.version },
      after: { environment, version: pin.previousVersion },
    });
    return presentPin(row!);
  });
}
