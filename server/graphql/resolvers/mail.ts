import { Args, Authorized, Ctx, ObjectType, Query, Resolver } from 'type-graphql';
import { listMail } from '@/server/mail/list';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { MailMessage } from '../types/mail';

@ObjectType('MailMessageConnection')
class MailMessageConnection extends connectionOf(MailMessage, 'MailMessage') {}

@Resolver()
export class MailResolver {
  // Admin only: a kept message's body can carry a one-time link to a partner's key.
  @Authorized('admin')
  @Query(() => MailMessageConnection, { description: 'Mail the service sent or keeps (the local outbox without SMTP_URL), newest first.' })
  async mailMessages(@Ctx() { ctx }: GraphQLContext, @Args(() => PageArgs) page: PageArgs): Promise<MailMessageConnection> {
    const { first, after } = pageOf(page);
    const rows = await listMail({ ctx, input: { limit: first + 1, after } });
    return toConnection(rows, first, (m) => m.id);
  }
}
