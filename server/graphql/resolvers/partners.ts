import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { listAllowlistEntries } from '@/server/allowlist/list';
import { listCredentials } from '@/server/credentials/list';
import type { OwnedPage } from '@/server/owned-page';
import { getPartner } from '@/server/partners/get';
import { listPartners } from '@/server/partners/list';
import { olderSubscriptionCounts, pinsOfPartners, type PinSummary } from '@/server/pins/of-partners';
import { listSubscriptionsOfPartners } from '@/server/webhooks/list-of-partners';
import { connectionOf, PageArgs, pageOf, toConnection, type Connection } from '../connection';
import { loader, type GraphQLContext } from '../context';
import { AllowlistEntry, ApiVersionPin, Credential, Partner, WebhookSubscription } from '../types/partner';

@ObjectType('PartnerConnection')
class PartnerConnection extends connectionOf(Partner, 'Partner') {}

@ObjectType('CredentialConnection')
class CredentialConnection extends connectionOf(Credential, 'Credential') {}

@ObjectType('AllowlistEntryConnection')
class AllowlistEntryConnection extends connectionOf(AllowlistEntry, 'AllowlistEntry') {}

@ObjectType('WebhookSubscriptionConnection')
class WebhookSubscriptionConnection extends connectionOf(WebhookSubscription, 'WebhookSubscription') {}

type OwnedList<T> = (args: { ctx: GraphQLContext['ctx']; input: OwnedPage }) => Promise<Map<string, T[]>>;

/**
 * One page of a partner's children, batched: a page of 25 partners asking for their credentials
 * runs one query. Partners asking with the same `first` and `after` share a batch.
 */
async function childPage<T extends { id: string }>(
  context: GraphQLContext,
  name: string,
  list: OwnedList<T>,
  partnerId: string,
  page: PageArgs,
): Promise<Connection<T>> {
  const { first, after } = pageOf(page);
  const batch = loader<string, T[]>(context, `${name}:${first}:${after ?? ''}`, async (partnerIds) => {
    const pages = await list({ ctx: context.ctx, input: { ownerIds: partnerIds, limit: first + 1, after } });
    return partnerIds.map((id) => pages.get(id) ?? []);
  });
  return toConnection(await batch.load(partnerId), first, (row) => row.id);
}

@Resolver(() => Partner)
export class PartnerResolver {
  @Authorized()
  @Query(() => PartnerConnection, { description: 'Partners, newest first; `search` matches a name (any case, any part) or an exact id.' })
  async partners(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('search', () => String, { nullable: true }) search?: string | null,
    @Arg('olderApiVersion', () => Boolean, {
      nullable: true,
      description:
        'true: only partners still on an API version older than the latest (an environment pinned to one, or to be pinned to one at its first request, or a live subscription on one).',
    })
    olderApiVersion?: boolean | null,
  ): Promise<PartnerConnection> {
    const { first, after } = pageOf(page);
    const rows = await listPartners({
      ctx,
      input: { search: search ?? undefined, limit: first + 1, after, olderApiVersion: olderApiVersion ?? undefined },
    });
    return toConnection(rows, first, (p) => p.id);
  }

  @Authorized()
  @Query(() => Partner, { description: 'One partner, with its credentials, allowlist, go-live review, rate limit and webhooks.' })
  partner(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Partner> {
    return getPartner({ ctx, input: { id } });
  }

  @Authorized()
  @FieldResolver(() => CredentialConnection, { description: 'Newest first, revoked ones included.' })
  credentials(
    @Root() partner: Partner,
    @Ctx() context: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
  ): Promise<CredentialConnection> {
    return childPage(context, 'credentials', listCredentials, partner.id, page);
  }

  @Authorized()
  @FieldResolver(() => AllowlistEntryConnection, {
    description: 'Newest first. Empty: the partner API accepts the partner from any address.',
  })
  allowlist(
    @Root() partner: Partner,
    @Ctx() context: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
  ): Promise<AllowlistEntryConnection> {
    return childPage(context, 'allowlist', listAllowlistEntries, partner.id, page);
  }

  @Authorized()
  @FieldResolver(() => [ApiVersionPin], { description: 'The API version of each environment, sandbox first.' })
  apiVersions(@Root() partner: Partner, @Ctx() context: GraphQLContext): Promise<ApiVersionPin[]> {
    const pins = loader<string, PinSummary[]>(context, 'apiVersionPins', async (partnerIds) => {
      const found = await pinsOfPartners({ ctx: context.ctx, input: { partnerIds } });
      return partnerIds.map((id) => found.get(id) ?? []);
    });
    return pins.load(partner.id);
  }

  @Authorized()
  @FieldResolver(() => Int, { description: 'Live webhook subscriptions on an API version older than the latest.' })
  subscriptionsOnOlderApiVersions(@Root() partner: Partner, @Ctx() context: GraphQLContext): Promise<number> {
    const counts = loader<string, number>(context, 'olderSubscriptionCounts', async (partnerIds) => {
      const found = await olderSubscriptionCounts({ ctx: context.ctx, input: { partnerIds } });
      return partnerIds.map((id) => found.get(id) ?? 0);
    });
    return counts.load(partner.id);
  }

  @Authorized()
  @FieldResolver(() => WebhookSubscriptionConnection, { description: 'Live subscriptions of both environments, newest first.' })
  webhookSubscriptions(
    @Root() partner: Partner,
    @Ctx() context: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
  ): Promise<WebhookSubscriptionConnection> {
    return childPage(context, 'webhookSubscriptions', listSubscriptionsOfPartners, partner.id, page);
  }
}
