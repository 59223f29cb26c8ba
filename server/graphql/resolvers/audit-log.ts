import { Arg, Args, Authorized, Ctx, ObjectType, Query, Resolver } from 'type-graphql';
import { listAuditEntries } from '@/server/audit/list';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { AuditEntry, AuditFilter } from '../types/audit';

@ObjectType('AuditEntryConnection')
class AuditEntryConnection extends connectionOf(AuditEntry, 'AuditEntry') {}

@Resolver()
export class AuditLogResolver {
  @Authorized()
  @Query(() => AuditEntryConnection, { description: 'Every operator action, newest first. GET /api/audit-log/export downloads it.' })
  async auditLog(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('filter', () => AuditFilter, { nullable: true }) filter?: AuditFilter | null,
  ): Promise<AuditEntryConnection> {
    const { first, after } = pageOf(page);
    const rows = await listAuditEntries({ ctx, input: { filter: definedOf(filter), first, after } });
    return toConnection(rows, first, (e) => e.position);
  }
}

/** GraphQL's nulls (an omitted or null field) as the absent fields the verb expects. */
function definedOf(filter: AuditFilter | null | undefined) {
  return Object.fromEntries(Object.entries(filter ?? {}).filter(([, v]) => v !== null && v !== undefined));
}
