import { Arg, Args, Authorized, Ctx, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { cancelReplayAsOperator } from '@/server/replays/cancel-as-operator';
import { searchReplays, type ReplayProgress } from '@/server/replays/search';
import { startReplayAsOperator } from '@/server/replays/start-as-operator';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import type { GraphQLContext } from '../context';
import { withoutNulls } from '../filters';
import { Replay, ReplayFilter, REPLAY_MODE, StartReplayResult, type ReplayModeValue } from '../types/replay';

@ObjectType('ReplayConnection')
class ReplayConnection extends connectionOf(Replay, 'Replay') {}

const at = (seconds: number) => new Date(seconds * 1000);

function toReplay(r: ReplayProgress): Replay {
  return {
    id: r.id,
    partnerId: r.partner_id,
    environment: r.environment,
    subscriptionId: r.webhook_id,
    status: r.status,
    phase: r.phase,
    settled: r.settled,
    since: at(r.since),
    until: at(r.until),
    eventTypes: r.event_types,
    only: r.only,
    matched: r.events_matched,
    enqueued: r.events_enqueued,
    delivered: r.events_delivered,
    failed: r.events_failed,
    skipped: r.events_skipped,
    pending: r.events_pending,
    retrying: r.events_retrying,
    nextRetryAt: r.next_retry_at,
    requestedBy: r.requested_by,
    createdAt: at(r.created),
    startedAt: r.started_at === null ? null : at(r.started_at),
    completedAt: r.completed_at === null ? null : at(r.completed_at),
  };
}

@Resolver(() => Replay)
export class ReplayResolver {
  @Authorized()
  @Query(() => ReplayConnection, { description: 'Replays of every partner with their progress, newest first.' })
  async replays(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('filter', () => ReplayFilter, { nullable: true }) filter?: ReplayFilter | null,
  ): Promise<ReplayConnection> {
    const { first, after } = pageOf(page);
    const rows = await searchReplays({ ctx, input: { filter: withoutNulls(filter), limit: first + 1, after } });
    return toConnection(rows.map(toReplay), first, (r) => r.id);
  }

  @Authorized()
  @Query(() => Replay, { nullable: true })
  async replay(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Replay | null> {
    const [row] = await searchReplays({ ctx, input: { filter: { id }, limit: 1 } });
    return row ? toReplay(row) : null;
  }

  @Authorized()
  @Mutation(() => StartReplayResult, {
    description:
      "Re-sends a window of past events (at most 30 days) that the subscription's filters accept, with their original ids. One at a time per subscription.",
  })
  async startReplay(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('webhookId', () => ID) webhookId: string,
    @Arg('since', () => Date) since: Date,
    @Arg('until', () => Date, { nullable: true, description: 'Default now.' }) until?: Date | null,
    @Arg('eventTypes', () => [String], { nullable: true }) eventTypes?: string[] | null,
    @Arg('only', () => REPLAY_MODE, { nullable: true, description: 'Default all.' }) only?: ReplayModeValue | null,
    @Arg('dryRun', () => Boolean, { defaultValue: false, description: 'Count, list the first ids, store nothing.' }) dryRun?: boolean,
  ): Promise<StartReplayResult> {
    const answer = await startReplayAsOperator({
      ctx,
      input: {
        webhookId,
        since: Math.floor(since.getTime() / 1000),
        ...(until ? { until: Math.floor(until.getTime() / 1000) } : {}),
        ...(eventTypes ? { event_types: eventTypes } : {}),
        ...(only ? { only } : {}),
        dry_run: dryRun ?? false,
      },
    });
    if (answer.kind === 'dry_run') return { dryRun: true, matched: answer.matched, firstEventIds: answer.firstEventIds, replay: null };
    return { dryRun: false, matched: answer.replay.events_matched, firstEventIds: [], replay: toReplay(answer.replay) };
  }

  @Authorized()
  @Mutation(() => Replay, { description: 'Stops a replay: nothing more is sent; what is on its way finishes.' })
  async cancelReplay(@Ctx() { ctx }: GraphQLContext, @Arg('replayId', () => ID) replayId: string): Promise<Replay> {
    return toReplay(await cancelReplayAsOperator({ ctx, input: { replayId } }));
  }
}
