import { and, count, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { apiVersionPins, partners, webhookSubscriptions } from '@/db/schema';
import type { Ctx, Environment } from '../context';
import { LATEST_VERSION } from '../versions/registry';
import { versionForFirstRequest } from './pin';
import { rollbackUntil } from './rollback-window';

export interface PinSummary {
  partnerId: string;
  environment: Environment;
  /** null: no request yet; `firstRequestPins` says what its first will pin. */
  version: string | null;
  firstRequestPins: string;
  previousVersion: string | null;
  pinnedAt: Date | null;
  changedAt: Date | null;
  rollbackUntil: Date | null;
}

/** Both environments' pins of several partners at once (a page of partners asks once), sandbox first. */
export async function pinsOfPartners({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerIds: readonly string[] };
}): Promise<Map<string, PinSummary[]>> {
  const byPartner = new Map<string, PinSummary[]>();
  if (input.partnerIds.length === 0) return byPartner;
  const ids = [...input.partnerIds];
  const [pins, owners] = await Promise.all([
    ctx.db.select().from(apiVersionPins).where(inArray(apiVersionPins.partnerId, ids)),
    ctx.db.select({ id: partners.id, firstPinVersion: partners.firstPinVersion }).from(partners).where(inArray(partners.id, ids)),
  ]);
  for (const owner of owners) {
    const of = (environment: Environment) => pins.find((p) => p.partnerId === owner.id && p.environment === environment);
    byPartner.set(
      owner.id,
      (['sandbox', 'production'] as const).map((environment) => {
        const pin = of(environment);
        return {
          partnerId: owner.id,
          environment,
          version: pin?.version ?? null,
          firstRequestPins:
            pin?.version ??
            versionForFirstRequest({ environment, firstPinVersion: owner.firstPinVersion, sandboxPin: of('sandbox')?.version }),
          previousVersion: pin?.previousVersion ?? null,
          pinnedAt: pin?.pinnedAt ?? null,
          changedAt: pin?.changedAt ?? null,
          rollbackUntil: pin ? rollbackUntil(pin) : null,
        };
      }),
    );
  }
  return byPartner;
}

/** How many live subscriptions of each partner are on a version older than the latest (one statement for a page). */
export async function olderSubscriptionCounts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerIds: readonly string[] };
}): Promise<Map<string, number>> {
  if (input.partnerIds.length === 0) return new Map();
  const t = webhookSubscriptions;
  const rows = await ctx.db
    .select({ partnerId: t.partnerId, n: count() })
    .from(t)
    .where(and(inArray(t.partnerId, [...input.partnerIds]), isNull(t.deletedAt), lt(t.apiVersion, LATEST_VERSION)))
    .groupBy(t.partnerId);
  return new Map(rows.map((r) => [r.partnerId, r.n]));
}

/**
 * Who still speaks an older version than the latest, as a condition on `partners`: an environment pinned to
 * one, a live subscription on one, or an environment not pinned yet whose first request will pin one (the
 * partners that existed before versions, pinned to the first version lazily). What the console's list of
 * partners on older versions shows.
 */
export function onOlderVersion(): SQL {
  return sql`(
    exists (select 1 from ${apiVersionPins} v where v.partner_id = ${partners.id} and v.version < ${LATEST_VERSION})
    or exists (select 1 from ${webhookSubscriptions} s where s.partner_id = ${partners.id} and s.deleted_at is null
      and s.api_version < ${LATEST_VERSION})
    or (${partners.firstPinVersion} < ${LATEST_VERSION}
      and (select count(*) from ${apiVersionPins} v where v.partner_id = ${partners.id}) < 2))`;
}
