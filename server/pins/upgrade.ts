import { and, eq } from 'drizzle-orm';
import { apiVersionPins } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError } from '../errors';
import { findPartnerOrThrow } from '../partners/find';
import { compareVersions, LATEST_VERSION } from '../versions/registry';
import { findPin } from './find';
import { presentPin } from './present';
import { ROLLBACK_HOURS } from './rollback-window';
import { parseOrThrow } from '../validation';
import { upgradePinInput, type PinResource, type UpgradePinInput } from './schemas';

/**
 * Moves an environment's pin to a newer version (the latest by default), keeping the one it leaves for a
 * rollback within ROLLBACK_HOURS. The partner's own call, or an operator's for it (audited as theirs). An
 * environment that never made a request is pinned to it at once. Every process renders the environment's
 * requests in it within CREDENTIAL_CACHE_TTL_MS; webhook subscriptions keep their own versions.
 */
export async function upgradePin({ ctx, input }: { ctx: TenantCtx; input: UpgradePinInput }): Promise<PinResource> {
  const { partnerId, environment } = ctx.actor;
  // Checked here too: an operator's call comes through GraphQL, which knows no version list.
  const target = parseOrThrow(upgradePinInput, input).version ?? LATEST_VERSION;
  return withTransaction(ctx, async (tx) => {
    await findPartnerOrThrow(tx, partnerId);
    const pin = await findPin(tx, true);
    if (pin && compareVersions(target, pin.version) <= 0) {
      throw new ConflictError(
        'api_version_not_newer',
        `${target} is not newer than this environment's version, ${pin.version}: an upgrade moves to a newer version (to go back after one, roll back within ${ROLLBACK_HOURS} hours).`,
        { version: pin.version },
      );
    }
    const now = new Date();
    const [row] = pin
      ? await tx.db
          .update(apiVersionPins)
          .set({ version: target, previousVersion: pin.version, changedAt: now })
          .where(and(eq(apiVersionPins.partnerId, partnerId), eq(apiVersionPins.environment, environment)))
          .returning()
      : await tx.db.insert(apiVersionPins).values({ partnerId, environment, version: target, pinnedAt: now, changedAt: now }).returning();
    await recordAudit(tx, {
      action: 'api_version.upgrade',
      targetType: 'partner',
      targetId: partnerId,
      before: { environment, version: pin?.version ?? null },
      after: { environment, version: target },
    });
    return presentPin(row!);
  });
}
