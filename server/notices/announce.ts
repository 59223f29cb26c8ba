import { eq } from 'drizzle-orm';
import { webhookNotices } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { emitEvent } from '../events/emit';
import { newId } from '../ids';
import { queueMail } from '../mail/queue';
import { presentWebhook } from '../webhooks/present';
import type { Candidate } from './candidates';
import { noticeMail } from './mail';
import type { NoticeStage } from './stages';
import { streakOf } from './streak';
import { noticeClocks } from './stages';

/** The operational event each stage is announced as: the warnings are webhook.failing again, with their stage. */
export const EVENT_OF_STAGE: Record<NoticeStage, string> = {
  failing: 'webhook.failing',
  warning_50: 'webhook.failing',
  warning_90: 'webhook.failing',
  disabled: 'webhook.disabled',
  recovered: 'webhook.recovered',
};

export interface Announced {
  subscription_id: string;
  stage: NoticeStage;
  streak_since: Date;
  mails: string[];
  event_id: string;
}

/**
 * Announces one stage of the streak that began at `since`, once: in one transaction, the notice row
 * (unique per subscription, streak and stage: a second worker's insert waits for the first's commit
 * and then does nothing), a mail per technical contact, and the operational event, whose fan-out
 * (isAudience) sends it to the partner's other subscriptions that name it. Undefined when another run
 * announced it first.
 */
export async function announceStage(ctx: Ctx, candidate: Candidate, stage: NoticeStage, since: Date): Promise<Announced | undefined> {
  const sub = candidate.subscription;
  const streak = streakOf(sub, stage, since, noticeClocks(ctx.env));
  return withTransaction(ctx, async (tx) => {
    const id = newId();
    const [claimed] = await tx.db
      .insert(webhookNotices)
      .values({
        id,
        subscriptionId: sub.id,
        partnerId: sub.partnerId,
        environment: sub.environment,
        streakSince: since,
        stage,
        streak,
        createdAt: new Date(),
      })
      .onConflictDoNothing()
      .returning({ id: webhookNotices.id });
    if (!claimed) return undefined;
    const { subject, text } = noticeMail(ctx.env, sub, stage, streak, candidate.now);
    const mails: string[] = [];
    for (const to of candidate.technicalContacts) mails.push((await queueMail(tx, { to, subject, text, kind: `webhook_${stage}` })).id);
    // The subscription's public fields and the streak: nothing a version of the envelope would have to translate.
    const event = await emitEvent(tx, {
      type: EVENT_OF_STAGE[stage],
      partnerId: sub.partnerId,
      environment: sub.environment,
      object: { ...presentWebhook(sub), failure_streak: streak },
    });
    await tx.db.update(webhookNotices).set({ mailIds: mails, eventId: event.envelope.id }).where(eq(webhookNotices.id, id));
    tx.afterCommit?.push(() => {
      for (let i = 0; i < mails.length; i++) ctx.metrics?.notice(stage, 'email');
      ctx.metrics?.notice(stage, 'event');
    });
    return { subscription_id: sub.id, stage, streak_since: since, mails, event_id: event.envelope.id };
  });
}
