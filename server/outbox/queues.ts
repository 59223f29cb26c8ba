import { z } from 'zod';

/**
 * Every queue of the service: its name and the shape of its jobs' data. Verbs enqueue through
 * server/outbox/enqueue.ts; each queue's settings and handler live with the workers (jobs/registry.ts).
 */
export interface Queue<N extends string = string, S extends z.ZodType = z.ZodType> {
  name: N;
  payload: S;
}

export type JobData<Q extends Queue> = z.infer<Q['payload']>;

function queue<N extends string, S extends z.ZodType>(name: N, payload: S): Queue<N, S> {
  return { name, payload };
}

/** A committed event, to be fanned out to its partner's matching subscriptions. */
export const FAN_OUT = queue('webhooks.fanout', z.object({ event_id: z.string() }));

/** One attempt of one delivery (event x subscription). */
export const DELIVER = queue(
  'webhooks.deliver',
  z.object({
    delivery_id: z.string(),
    /** The delivery's event: the week its partition is (claimAttempts). Jobs enqueued before it was carried have none. */
    event_id: z.string().optional(),
    subscription_id: z.string(),
    attempt: z.number().int().min(1),
    trigger: z.enum(['scheduled', 'manual', 'replay']).optional(),
    /** Who asked for a manual or replay attempt (requesterOf): recorded on the attempt. */
    requested_by: z.string().max(320).optional(),
  }),
);
export type DeliverJob = JobData<typeof DELIVER>;

/** The next page of a replay; `step` is the replay's job step it was made for (see webhook_replays.job_step). */
export const REPLAY_PAGE = queue('webhooks.replay-page', z.object({ replay_id: z.string(), step: z.number().int().min(0) }));

/** The next step of a sandbox order's scenario (the robot courier). */
export const SCENARIO_STEP = queue('sandbox.scenario-step', z.object({ order_id: z.string(), step: z.number().int().min(0) }));

/** Scheduled: cancels sandbox orders left open too long. */
export const SANDBOX_TIMEOUT_SWEEP = queue('sandbox.timeout-sweep', z.object({}).passthrough());

/** Scheduled: deletes expired idempotency keys and events past their retention. */
export const PURGE_EXPIRED = queue('maintenance.purge-expired', z.object({}).passthrough());

/** Scheduled every minute: counts the attempts recorded since into the per-minute rollup (server/history/rollup.ts). */
export const ROLLUP_ATTEMPTS = queue('maintenance.rollup-attempts', z.object({}).passthrough());

/**
 * The failure notices (server/notices/): with a subscription id, that subscription's (a failure or a
 * success just moved its streak); scheduled without one every minute, every subscription in a streak.
 */
export const NOTICES = queue('webhooks.notices', z.object({ subscription_id: z.string().optional() }).passthrough());

/** One e-mail of mail_messages to send (SMTP, or kept in the local outbox without SMTP_URL). */
export const SEND_MAIL = queue('mail.send', z.object({ message_id: z.string() }));

/** NOTIFY channel whose payload names a queue that just got jobs due now (jobs/wake.ts listens). */
export const JOBS_CHANNEL = 'pdp_jobs';
