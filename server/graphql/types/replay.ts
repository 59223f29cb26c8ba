import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
import type { ReplayPhase as ReplayPhaseValue } from '@/server/replays/progress';
import { REPLAY_MODES } from '@/server/replays/schemas';
import { ENVIRONMENTS } from './environment';

export type ReplayStatusValue = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
export const REPLAY_STATUS = {
  queued: 'queued',
  running: 'running',
  completed: 'completed',
  cancelled: 'cancelled',
  failed: 'failed',
} as const satisfies Record<ReplayStatusValue, ReplayStatusValue>;
registerEnumType(REPLAY_STATUS, { name: 'ReplayStatus' });

export const REPLAY_PHASE = {
  sending: 'sending',
  delivering: 'delivering',
  retrying: 'retrying',
  settled: 'settled',
} as const satisfies Record<ReplayPhaseValue, ReplayPhaseValue>;
registerEnumType(REPLAY_PHASE, {
  name: 'ReplayPhase',
  description:
    'Where a replay is with its deliveries (status says only what its pages did). sending: pages are still to be enqueued; ' +
    'delivering: none is left and a delivery is in flight or due; retrying: each delivery still on its way waits for a ' +
    'retry scheduled later; settled: none is pending, the counts are final.',
});

export type ReplayModeValue = (typeof REPLAY_MODES)[number];
export const REPLAY_MODE = Object.fromEntries(REPLAY_MODES.map((m) => [m, m])) as { [M in ReplayModeValue]: M };
registerEnumType(REPLAY_MODE, {
  name: 'ReplayMode',
  description: 'all: every event in the window; failed: never delivered successfully to it; missing: never sent to it.',
});

@ObjectType('Replay', { description: 'A window of past events re-sent to one subscription, with its progress.' })
export class Replay {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => ID)
  subscriptionId!: string;

  @Field(() => REPLAY_STATUS, {
    description: 'What its page jobs did: completed means every page was enqueued, not delivered (see phase).',
  })
  status!: ReplayStatusValue;

  @Field(() => REPLAY_PHASE)
  phase!: ReplayPhaseValue;

  @Field(() => Boolean, { description: 'phase is settled: no page left and no delivery pending.' })
  settled!: boolean;

  @Field(() => Date)
  since!: Date;

  @Field(() => Date)
  until!: Date;

  @Field(() => [String], { nullable: true, description: "null: every type the subscription's filters accept." })
  eventTypes!: string[] | null;

  @Field(() => REPLAY_MODE)
  only!: ReplayModeValue;

  @Field(() => Int)
  matched!: number;

  @Field(() => Int)
  enqueued!: number;

  @Field(() => Int)
  delivered!: number;

  @Field(() => Int, { description: 'Failed after every retry.' })
  failed!: number;

  @Field(() => Int, { description: 'Not sent: the subscription was disabled or deleted before their attempt.' })
  skipped!: number;

  @Field(() => Int, { description: 'On their way: in flight, due, or waiting for a scheduled retry.' })
  pending!: number;

  @Field(() => Int, { description: 'Of pending, those waiting for a retry scheduled later.' })
  retrying!: number;

  @Field(() => Date, { nullable: true, description: 'When the first of retrying is due.' })
  nextRetryAt!: Date | null;

  @Field(() => String, { description: 'partner:<client id> or operator:<e-mail>.' })
  requestedBy!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  startedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  completedAt!: Date | null;
}

@ObjectType('StartReplayResult', { description: 'A dry run counts and stores nothing (replay is null); otherwise the replay started.' })
export class StartReplayResult {
  @Field(() => Boolean)
  dryRun!: boolean;

  @Field(() => Int)
  matched!: number;

  @Field(() => [ID], { description: 'A dry run: the first events that would be sent (up to 10).' })
  firstEventIds!: string[];

  @Field(() => Replay, { nullable: true })
  replay!: Replay | null;
}

@InputType('ReplayFilter')
export class ReplayFilter {
  @Field(() => ID, { nullable: true })
  partnerId?: string | null;

  @Field(() => ID, { nullable: true })
  subscriptionId?: string | null;

  @Field(() => REPLAY_STATUS, { nullable: true })
  status?: ReplayStatusValue | null;
}
