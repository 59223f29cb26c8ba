import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { listNotices, MAX_NOTICES, type NoticeRecord } from '@/server/notices/list';
import { getTechnicalContacts } from '@/server/partners/get-contacts';
import { setTechnicalContacts } from '@/server/partners/set-contacts';
import type { TechnicalContacts as Contacts } from '@/server/partners/schemas';
import type { GraphQLContext } from '../context';
import { TechnicalContacts, WebhookNotice } from '../types/notice';
import { WebhookSubscription } from '../types/partner';

const contactsOf = (partnerId: string, c: Contacts): TechnicalContacts => ({
  partnerId,
  emails: c.emails,
  sandboxNotifications: c.sandbox_notifications,
});

const noticeOf = (n: NoticeRecord): WebhookNotice => ({ ...n, failedAttempts: n.streak.failed_attempts });

/** A subscription's failure notices and who they go to; changing the contacts is admin's, as the partner's other settings. */
@Resolver(() => WebhookSubscription)
export class WebhookNoticeResolver {
  @Authorized()
  @FieldResolver(() => [WebhookNotice], { description: `Failure notices sent about it, newest first (at most ${MAX_NOTICES}).` })
  async notices(
    @Root() subscription: WebhookSubscription,
    @Ctx() { ctx }: GraphQLContext,
    @Arg('first', () => Int, { defaultValue: 25 }) first: number,
  ): Promise<WebhookNotice[]> {
    return (await listNotices({ ctx, input: { subscriptionId: subscription.id, limit: first } })).map(noticeOf);
  }

  @Authorized()
  @FieldResolver(() => TechnicalContacts, { description: "Its partner's technical contacts: who its failure notices are mailed to." })
  async technicalContacts(@Root() subscription: WebhookSubscription, @Ctx() { ctx }: GraphQLContext): Promise<TechnicalContacts> {
    return contactsOf(subscription.partnerId, await getTechnicalContacts({ ctx, input: { partnerId: subscription.partnerId } }));
  }

  @Authorized('admin')
  @Mutation(() => TechnicalContacts, {
    description:
      "Replaces a partner's technical contacts (at most 10 addresses; empty: no mail) and, when given, its sandbox opt-in, as the partner's PUT /partner/contacts.",
  })
  async setTechnicalContacts(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('partnerId', () => ID) partnerId: string,
    @Arg('emails', () => [String]) emails: string[],
    @Arg('sandboxNotifications', () => Boolean, { nullable: true }) sandboxNotifications?: boolean | null,
  ): Promise<TechnicalContacts> {
    const contacts = await setTechnicalContacts({
      ctx,
      input: { partnerId, emails, sandbox_notifications: sandboxNotifications ?? undefined },
    });
    return contactsOf(partnerId, contacts);
  }
}
