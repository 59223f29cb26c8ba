import { z } from 'zod';
import { listOf, listQuery, ulidString, unixTime } from '../common-schemas';

// 9999-12-31T23:59:59Z, as for every other time parameter.
const MAX_UNIX = 253_402_300_799;
const time = z.number().int().min(0).max(MAX_UNIX);

export const REPLAY_MODES = ['all', 'failed', 'missing'] as const;

export const createReplayInput = z
  .strictObject({
    since: time.meta({ description: 'Replay events created at or after this (Unix seconds)' }),
    until: time
      .optional()
      .meta({ description: 'And before this (Unix seconds); default now. At most 30 days after since, not in the future' }),
    event_types: z
      .array(z.string().max(100))
      .min(1)
      .max(50)
      .optional()
      .meta({ description: "Only these types; each must be one the subscription's filters accept. Default: all it accepts" }),
    only: z
      .enum(REPLAY_MODES)
      .optional()
      .meta({ description: 'all (default); failed: those whose delivery to this subscription failed; missing: those never sent to it' }),
    dry_run: z.boolean().optional().meta({ description: 'Count what would be sent, and send nothing' }),
  })
  .meta({ id: 'ReplayRequest' });
export type CreateReplayInput = z.infer<typeof createReplayInput>;

export const replayResource = z
  .object({
    id: ulidString,
    object: z.literal('replay'),
    livemode: z.boolean(),
    webhook_id: ulidString,
    status: z.enum(['queued', 'running', 'completed', 'cancelled', 'failed']),
    since: unixTime,
    until: unixTime,
    event_types: z.array(z.string()).nullable(),
    only: z.enum(REPLAY_MODES),
    events_matched: z.number().int().meta({ description: 'Events in the window that the replay selects (counted when it was created)' }),
    events_enqueued: z.number().int().meta({ description: 'Events sent on their way so far' }),
    events_delivered: z.number().int().meta({ description: 'Of those, delivered (any 2xx)' }),
    events_failed: z.number().int().meta({ description: 'Of those, failed after every retry' }),
    events_skipped: z
      .number()
      .int()
      .meta({ description: 'Of those, not sent: the subscription was disabled or deleted before their attempt' }),
    events_pending: z
      .number()
      .int()
      .meta({ description: 'Of those, still on their way: in flight, due, or waiting for a scheduled retry' }),
    settled: z.boolean().meta({
      description:
        'Every page is enqueued (status completed, cancelled or failed) and none of its deliveries is pending: its counts are final. ' +
        'completed alone means every page was enqueued, not delivered',
    }),
    created: unixTime,
    started_at: unixTime.nullable(),
    completed_at: unixTime.nullable(),
  })
  .meta({ id: 'Replay' });
export type ReplayResource = z.infer<typeof replayResource>;

export const replayDryRun = z
  .object({
    object: z.literal('replay_dry_run'),
    livemode: z.boolean(),
    webhook_id: ulidString,
    since: unixTime,
    until: unixTime,
    event_types: z.array(z.string()).nullable(),
    only: z.enum(REPLAY_MODES),
    events_matched: z.number().int(),
    first_event_ids: z.array(ulidString).meta({ description: 'The first (oldest) matching events, at most 10' }),
  })
  .meta({ id: 'ReplayDryRun' });

export const replayList = listOf(replayResource, 'ReplayList');
export const listReplaysQuery = z.strictObject({ ...listQuery });
export const replayParams = z.strictObject({ id: ulidString, replay_id: ulidString });

export const redeliverInput = z
  .strictObject({
    webhook_id: ulidString
      .optional()
      .meta({ description: 'Only this subscription; default every subscription whose filters accept the event' }),
  })
  .meta({ id: 'RedeliverRequest' });

export const redelivery = z
  .object({
    object: z.literal('redelivery'),
    event_id: ulidString,
    webhook_ids: z.array(ulidString).meta({ description: 'The subscriptions the event is sent to again' }),
  })
  .meta({ id: 'Redelivery' });
