import { and, eq } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import { announceStage, type Announced } from './announce';
import { noticeCandidates, type Candidate } from './candidates';
import { nextNotice, noticeClocks, type Streak } from './stages';

const autoDisabled = (c: Candidate) =>
  c.subscription.status === 'disabled' &&
  (c.subscription.disabledReason === 'gone' || c.subscription.disabledReason === 'too_many_failures');

/** The streaks of a subscription to look at: the one a success ended, if not dealt with yet, and the open one. */
function streaksOf(c: Candidate): { since: Date; state: Streak['state']; sent: string[]; ended: boolean }[] {
  const sub = c.subscription;
  const streaks = [];
  if (sub.recoveredFrom) {
    // A success recorded after the failure that disabled it (an attempt already in flight) ended the streak too.
    const state = autoDisabled(c) && sub.failingSince === null ? 'disabled' : 'recovered';
    streaks.push({ since: sub.recoveredFrom, state, sent: c.sentEnded, ended: true } as const);
  }
  if (sub.failingSince) {
    const state = sub.status === 'enabled' ? 'failing' : autoDisabled(c) ? 'disabled' : 'quiet';
    streaks.push({ since: sub.failingSince, state, sent: c.sentOpen, ended: false } as const);
  }
  return streaks;
}

/**
 * Brings the failure notices up to date: of one subscription (a failure or a success just moved its
 * streak: the record path enqueues that), or of every subscription in a streak (the job's minute).
 * For each streak, {@link nextNotice} decides; {@link announceStage} announces once. A production
 * subscription is always told of; a sandbox one only when its partner opted in (sandbox_notifications):
 * otherwise nothing is announced, recorded or counted. An ended streak, once looked at, is forgotten
 * (recovered_from cleared). Safe to run on any number of workers at once.
 */
export async function advanceNotices({ ctx, input }: { ctx: Ctx; input: { subscriptionId?: string } }): Promise<Announced[]> {
  const clocks = noticeClocks(ctx.env);
  const announced: Announced[] = [];
  const failed: unknown[] = [];
  for (const c of await noticeCandidates(ctx, input.subscriptionId)) {
    try {
      const told = c.subscription.environment === 'production' || c.sandboxNotifications;
      for (const streak of streaksOf(c)) {
        const stage = told ? nextNotice({ ...streak, ageMs: c.now.getTime() - streak.since.getTime() }, clocks) : undefined;
        const done = stage && (await announceStage(ctx, c, stage, streak.since));
        if (done) announced.push(done);
        if (streak.ended) {
          const s = webhookSubscriptions;
          await ctx.db
            .update(s)
            .set({ recoveredFrom: null, recoveredAt: null })
            .where(and(eq(s.id, c.subscription.id), eq(s.recoveredFrom, streak.since)));
        }
      }
    } catch (error) {
      ctx.log.error({ subscription_id: c.subscription.id, err: error }, 'could not bring the failure notices of a subscription up to date');
      failed.push(error);
    }
  }
  // The others went ahead; the job is retried for the ones that failed.
  if (failed.length > 0) throw failed[0];
  return announced;
}
