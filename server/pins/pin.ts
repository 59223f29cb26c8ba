import { and, eq, sql } from 'drizzle-orm';
import { apiVersionPins, partners } from '@/db/schema';
import type { Environment, TenantCtx } from '../context';
import { LATEST_VERSION } from '../versions/registry';

/**
 * The version an environment's first request pins:
 *
 * - the partner's `first_pin_version` when set: partners that existed before versions were pinned to the
 *   first version by the migration that introduced them (lazily, at that first request), since they had
 *   integrated against it;
 * - production: the sandbox's pin, when the sandbox has one. Production credentials come after UAT in the
 *   sandbox, so production starts on the version the integration was tested against rather than on one
 *   released between the sandbox's first request and go-live;
 * - else the latest version.
 *
 * After that first request the pin changes only by an upgrade or a rollback (upgrade.ts, rollback.ts).
 */
export function versionForFirstRequest(input: {
  environment: Environment;
  firstPinVersion: string | null;
  sandboxPin: string | undefined;
}): string {
  if (input.firstPinVersion) return input.firstPinVersion;
  if (input.environment === 'production' && input.sandboxPin) return input.sandboxPin;
  return LATEST_VERSION;
}

/**
 * Pins the caller's environment if nothing has yet (its first request), and answers its pin. Two first
 * requests at once pin once: the second's insert does nothing and it reads the first's.
 */
export async function pinEnvironment({ ctx }: { ctx: TenantCtx }): Promise<string> {
  const { partnerId, environment } = ctx.actor;
  const [found] = await ctx.db.execute<{ version: string | null; first_pin_version: string | null; sandbox_pin: string | null }>(sql`
    select
      (select version from ${apiVersionPins} where partner_id = ${partnerId} and environment = ${environment}) as version,
      (select first_pin_version from ${partners} where id = ${partnerId}) as first_pin_version,
      (select version from ${apiVersionPins} where partner_id = ${partnerId} and environment = 'sandbox') as sandbox_pin`);
  if (found?.version) return found.version;
  const version = versionForFirstRequest({
    environment,
    firstPinVersion: found?.first_pin_version ?? null,
    sandboxPin: found?.sandbox_pin ?? undefined,
  });
  await ctx.db.insert(apiVersionPins).values({ partnerId, environment, version, pinnedAt: new Date() }).onConflictDoNothing();
  const [pin] = await ctx.db
    .select({ version: apiVersionPins.version })
    .from(apiVersionPins)
    .where(and(eq(apiVersionPins.partnerId, partnerId), eq(apiVersionPins.environment, environment)));
  ctx.log.info({ partner_id: partnerId, environment, api_version: pin!.version }, 'api version pinned at first request');
  return pin!.version;
}
