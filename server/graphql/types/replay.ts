import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
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

  @Field(() => REPLAY_STATUS)
  status!: ReplayStatusValue;

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

  @Field(() => Int)
  failed!: number;

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
