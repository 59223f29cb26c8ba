import { Arg, Args, Authorized, Ctx, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { approveAccessRequest } from '@/server/access/approve';
import { listAccessRequests } from '@/server/access/list';
import { rejectAccessRequest } from '@/server/access/reject';
import type { AccessListStatus } from '@/server/access/schemas';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { ACCESS_REQUEST_STATUSES, AccessRequest } from '../types/access-request';

@ObjectType('AccessRequestConnection')
class AccessRequestConnection extends connectionOf(AccessRequest, 'AccessRequest') {}

@Resolver()
export class AccessRequestResolver {
  @Authorized()
  @Query(() => AccessRequestConnection, { description: 'Confirmed access requests, newest first; all three statuses without `status`.' })
  async accessRequests(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('status', () => ACCESS_REQUEST_STATUSES, { nullable: true }) status?: AccessListStatus | null,
  ): Promise<AccessRequestConnection> {
    const { first, after } = pageOf(page);
    const rows = await listAccessRequests({ ctx, input: { status: status ?? undefined, first, after } });
    return toConnection(rows, first, (r) => r.id);
  }

  @Authorized('admin')
  @Mutation(() => AccessRequest, {
    description: "Creates the partner (the company's name) and its sandbox credential, and e-mails the contact a one-time link to the key.",
  })
  approveAccessRequest(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<AccessRequest> {
    return approveAccessRequest({ ctx, input: { id } });
  }

  @Authorized('admin')
  @Mutation(() => AccessRequest, { description: 'Rejects a new request; the reason is e-mailed to the contact.' })
  rejectAccessRequest(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('id', () => ID) id: string,
    @Arg('reason', () => String) reason: string,
  ): Promise<AccessRequest> {
    return rejectAccessRequest({ ctx, input: { id, reason } });
  }
}
