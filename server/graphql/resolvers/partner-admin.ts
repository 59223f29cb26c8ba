import { Arg, Authorized, Ctx, ID, Int, Mutation, Resolver } from 'type-graphql';
import { addAllowlistEntry, removeAllowlistEntry } from '@/server/allowlist/edit';
import type { Environment } from '@/server/context';
import { issueCredential } from '@/server/credentials/issue';
import { issueHandedOverCredential } from '@/server/credentials/issue-handed-over';
import { resendHandover } from '@/server/credentials/resend-handover';
import { revokeCredential } from '@/server/credentials/revoke';
import { createPartner } from '@/server/partners/create';
import { decideGoLive, type GoLiveDecision } from '@/server/partners/go-live';
import { setRateLimit } from '@/server/partners/set-rate-limit';
import type { GraphQLContext } from '../context';
import { ENVIRONMENTS } from '../types/environment';
import { AllowlistEdit, GoLiveReview, IssuedCredential, Partner, RateLimit, ResentHandover, RevokedCredential } from '../types/partner';

/** What only an admin may change: partners, their credentials, allowlists, go-live reviews and rate limits. */
@Resolver()
export class PartnerAdminResolver {
  @Authorized('admin')
  @Mutation(() => Partner)
  createPartner(@Ctx() { ctx }: GraphQLContext, @Arg('name', () => String) name: string): Promise<Partner> {
    return createPartner({ ctx, input: { name } });
  }

  @Authorized('admin')
  @Mutation(() => IssuedCredential, {
    description:
      'Issues an API key. With `email` it is handed over (a one-time link e-mailed, the key not in this answer); without, returned in this answer only. production needs an approved go-live review.',
  })
  async issueCredential(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('environment', () => ENVIRONMENTS) environment: Environment,
    @Arg('email', () => String, { nullable: true }) email?: string | null,
  ): Promise<IssuedCredential> {
    if (email) {
      const handed = await issueHandedOverCredential({ ctx, input: { partnerId, environment, email } });
      return { partnerId, clientId: handed.client_id, environment: handed.environment, key: null, handedOverTo: handed.handed_over_to };
    }
    const issued = await issueCredential({ ctx, input: { partnerId, environment } });
    return { partnerId, clientId: issued.client_id, environment: issued.environment, key: issued.api_key, handedOverTo: null };
  }

  @Authorized('admin')
  @Mutation(() => ResentHandover, {
    description:
      'E-mails a new one-time link (the old one dies). Before the key was shown the link carries the same key; after, a new key replaces it.',
  })
  async resendHandover(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('clientId', () => String) clientId: string,
    @Arg('email', () => String, { nullable: true, description: "Defaults to the latest link's address." }) email?: string | null,
  ): Promise<ResentHandover> {
    const sent = await resendHandover({ ctx, input: { clientId, email: email ?? undefined } });
    return { clientId: sent.client_id, handedOverTo: sent.handed_over_to, expiresAt: sent.expires_at, keyReplaced: sent.key_replaced };
  }

  @Authorized('admin')
  @Mutation(() => RevokedCredential, { description: 'Revoking a revoked credential answers its first revocation.' })
  async revokeCredential(@Ctx() { ctx }: GraphQLContext, @Arg('clientId', () => String) clientId: string): Promise<RevokedCredential> {
    const revoked = await revokeCredential({ ctx, input: { clientId } });
    return { clientId: revoked.client_id, revokedAt: new Date(revoked.revoked_at * 1000) };
  }

  @Authorized('admin')
  @Mutation(() => AllowlistEdit, { description: 'Adds an IPv4 or IPv6 CIDR (a bare address is /32 or /128), or relabels it.' })
  async addAllowlistEntry(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('cidr', () => String) cidr: string,
    @Arg('label', () => String, { nullable: true }) label?: string | null,
  ): Promise<AllowlistEdit> {
    const added = await addAllowlistEntry({ ctx, input: { partnerId, cidr, label: label ?? undefined } });
    return { partnerId: added.partner_id, cidr: added.cidr, label: added.label };
  }

  @Authorized('admin')
  @Mutation(() => Boolean)
  async removeAllowlistEntry(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('cidr', () => String) cidr: string,
  ): Promise<boolean> {
    await removeAllowlistEntry({ ctx, input: { partnerId, cidr } });
    return true;
  }

  @Authorized('admin')
  @Mutation(() => GoLiveReview, { description: 'Records that the partner asked for its go-live review (after UAT).' })
  requestGoLive(
    @Ctx() context: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('note', () => String, { nullable: true }) note?: string | null,
  ): Promise<GoLiveReview> {
    return decide(context, partnerId, 'request', note);
  }

  @Authorized('admin')
  @Mutation(() => GoLiveReview, { description: 'Approves a requested review: production credentials may then be issued.' })
  approveGoLive(
    @Ctx() context: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('note', () => String, { nullable: true }) note?: string | null,
    @Arg('email', () => String, {
      nullable: true,
      description: 'Also issues the production credential and e-mails its one-time hand-over link here, in the same transaction.',
    })
    email?: string | null,
  ): Promise<GoLiveReview> {
    return decide(context, partnerId, 'approve', note, email);
  }

  @Authorized('admin')
  @Mutation(() => GoLiveReview, { description: 'Rejects a requested review; the partner may ask again.' })
  rejectGoLive(
    @Ctx() context: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('note', () => String, { nullable: true }) note?: string | null,
    @Arg('email', () => String, { nullable: true, description: 'E-mails the reason (the note) here.' }) email?: string | null,
  ): Promise<GoLiveReview> {
    return decide(context, partnerId, 'reject', note, email);
  }

  @Authorized('admin')
  @Mutation(() => RateLimit, {
    description: "Sets the partner's requests per second per credential (burst twice that); null restores the platform default.",
  })
  async setRateLimit(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('perSecond', () => Int, { nullable: true }) perSecond: number | null,
  ): Promise<RateLimit> {
    const limit = await setRateLimit({ ctx, input: { partnerId, perSecond } });
    return { partnerId, override: perSecond, perSecond: limit.rate_limit_per_second, burst: limit.burst };
  }
}

async function decide(
  { ctx }: GraphQLContext,
  partnerId: string,
  decision: GoLiveDecision,
  note?: string | null,
  email?: string | null,
): Promise<GoLiveReview> {
  const review = await decideGoLive({ ctx, input: { partnerId, decision, note: note ?? undefined, email: email || undefined } });
  const { handover } = review;
  return {
    partnerId: review.id,
    status: review.go_live_status,
    note: review.go_live_note,
    handover: handover ? { clientId: handover.client_id, email: handover.email, expiresAt: handover.expires_at } : null,
  };
}
