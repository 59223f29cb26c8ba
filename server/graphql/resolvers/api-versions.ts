import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { actingFor, type Environment } from '@/server/context';
import { rollbackPin } from '@/server/pins/rollback';
import type { PinResource } from '@/server/pins/schemas';
import { upgradePin } from '@/server/pins/upgrade';
import { listVersions } from '@/server/versions/list';
import type { GraphQLContext } from '../context';
import { ApiVersion } from '../types/api-version';
import { ENVIRONMENTS } from '../types/environment';
import { ApiVersionPin } from '../types/partner';

/** The versions of the partner API, and an admin's upgrade or rollback of a partner environment's pin (audited). */
@Resolver()
export class ApiVersionResolver {
  @Authorized()
  @Query(() => [ApiVersion], { description: 'Every version of the partner API, newest first.' })
  apiVersions(): ApiVersion[] {
    return listVersions().data;
  }

  @Authorized('admin')
  @Mutation(() => ApiVersionPin, {
    description:
      "Moves a partner environment's pin to a newer version (default the latest), as the partner's POST /partner/api-version/upgrade would; a rollback is possible for 72 h.",
  })
  async upgradeApiVersion(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('environment', () => ENVIRONMENTS) environment: Environment,
    @Arg('version', () => String, { nullable: true }) version?: string | null,
  ): Promise<ApiVersionPin> {
    const pin = await upgradePin({ ctx: actingFor(ctx, { partnerId, environment }), input: { version: version ?? undefined } });
    return pinOf(partnerId, environment, pin);
  }

  @Authorized('admin')
  @Mutation(() => ApiVersionPin, { description: "Returns a partner environment's pin to the version its last upgrade left, within 72 h." })
  async rollbackApiVersion(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('environment', () => ENVIRONMENTS) environment: Environment,
  ): Promise<ApiVersionPin> {
    return pinOf(partnerId, environment, await rollbackPin({ ctx: actingFor(ctx, { partnerId, environment }) }));
  }
}

function pinOf(partnerId: string, environment: Environment, pin: PinResource): ApiVersionPin {
  const at = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000));
  return {
    partnerId,
    environment,
    version: pin.version,
    firstRequestPins: pin.version,
    previousVersion: pin.previous_version,
    pinnedAt: at(pin.pinned_at),
    changedAt: at(pin.changed_at),
    rollbackUntil: at(pin.rollback_until),
  };
}
