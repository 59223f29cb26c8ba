import { plannedEachTime } from '@/db/client';
import { anyOfRaw } from '@/db/lists';
import type { Ctx } from '../context';
import type { DeliverJob } from '../outbox/queues';
import { HEARTBEAT_STALE_SECONDS } from '../workers/heartbeat';
import { bodyRenderer, claimedAttemptOf, type ClaimedAttempt, type ClaimedAttemptRow } from './claimed-attempt';

/**
 * Claims the attempts that deliver jobs (retries, and attempts returned by a worker) name, in one
 * statement. An attempt is claimable when it is the delivery's next one and unclaimed, or when it is
 * its current one, the claim lapsed and no other live worker holds it (its holder died: the rule of
 * leases.ts, for a retried job). Jobs that find nothing claimable (a duplicate job, a delivery closed
 * meanwhile) are stale and simply end. `holder` is the claiming worker's heartbeat id.
 */
export async function claimAttempts(ctx: Ctx, jobs: DeliverJob[], holder: string): Promise<ClaimedAttempt[]> {
  if (jobs.length === 0) return [];
  const events = await eventsOfJobs(ctx, jobs);
  // The hot path is written for postgres.js, not Drizzle: Drizzle's query building cost more CPU per
  // delivery than the HTTPS request itself (`npm run bench -- delivery --profile`). Ids are ULIDs, so
  // a comma-separated list needs no escaping. By the whole key (id, event id), planned for its values
  // (plannedEachTime): Postgres reads only the weeks holding the batch's deliveries, by their primary
  // key (record-outcomes.ts, eventsOf, says what reading by ids alone cost).
  const rows = await plannedEachTime(ctx.sql<(Omit<ClaimedAttemptRow, 'trigger' | 'requested_by'> & { job_index: number })[]>`
    update webhook_deliveries d
    set attempts = j.attempt, claimed_until = now() + make_interval(secs => ${ctx.env.WEBHOOK_CLAIM_SECONDS}), claimed_by = ${holder},
      updated_at = now()
    from unnest(string_to_array(${jobs.map((j) => j.delivery_id).join(',')}, ','), string_to_array(${events.join(',')}, ','),
          string_to_array(${jobs.map((j) => j.attempt).join(',')}, ',')::int[])
        with ordinality as j(id, event_id, attempt, job_index),
      webhook_subscriptions s, events e
    where d.id = j.id and d.event_id = j.event_id and s.id = d.subscription_id and e.id = d.event_id and d.status = 'pending'
      and ((d.attempts = j.attempt - 1 and d.claimed_until is null)
        or (d.attempts = j.attempt and d.claimed_until < now() and not exists (
          select 1 from worker_heartbeats h where h.id = d.claimed_by and h.id <> ${holder}
            and h.beat_at >= now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS}))))
    returning d.id, d.subscription_id, j.attempt, j.job_index, d.event_type, s.url, s.status as sub_status, s.deleted_at, s.environment,
      s.secret_sealed, s.previous_secrets, d.event_id, d.api_version, e.envelope, e.previous_attributes,
      coalesce(d.next_attempt_at, d.created_at) as due_at`);
  // A retry renders its event in the version its delivery recorded (not the subscription's now): the bytes
  // of its first attempt again.
  const render = bodyRenderer();
  return rows.map(({ job_index, ...row }) => {
    const job = jobs[job_index - 1];
    return claimedAttemptOf(
      {
        ...row,
        trigger: job?.trigger ?? 'scheduled',
        ...(job?.requested_by ? { requested_by: job.requested_by } : {}),
      },
      render,
    );
  });
}

/** Each job's event id, in order: carried by the job, or read for a job enqueued before it was (during an upgrade). */
async function eventsOfJobs(ctx: Ctx, jobs: DeliverJob[]): Promise<string[]> {
  const missing = jobs.filter((j) => !j.event_id).map((j) => j.delivery_id);
  if (missing.length === 0) return jobs.map((j) => j.event_id!);
  const rows = await ctx.sql<{ id: string; event_id: string }[]>`
    select id, event_id from webhook_deliveries where id = ${anyOfRaw(ctx.sql, missing)}`;
  const found = new Map(rows.map((r) => [r.id, r.event_id]));
  // A job whose delivery is gone keeps an empty event id: it claims nothing and ends, as a stale job does.
  return jobs.map((j) => j.event_id ?? found.get(j.delivery_id) ?? '');
}
