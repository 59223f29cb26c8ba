import type { NoticeStreak } from '@/db/schema';
import type { Env } from '../config/env';
import type { SubscriptionRow } from '../webhooks/present';
import type { NoticeStage } from './stages';

const time = (unix: number) =>
  `${new Date(unix * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;

const UNITS = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
] as const;

/** "2 days 12 hours", "1 hour 5 minutes", "40 seconds": the largest unit and the next, if not zero. */
export function roughly(ms: number): string {
  let left = Math.max(0, Math.round(ms / 1000));
  const parts = UNITS.map(([name, size]) => {
    const n = Math.floor(left / size);
    left -= n * size;
    return [name, n] as const;
  });
  const first = parts.findIndex(([, n]) => n > 0);
  if (first === -1) return '0 seconds';
  return parts
    .slice(first, first + 2)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}${n === 1 ? '' : 's'}`)
    .join(' ');
}

function lastError(streak: NoticeStreak): string {
  const last = streak.last_failure;
  if (!last) return 'not recorded';
  const what =
    last.error_kind === 'http_status' && last.response_status !== null ? `HTTP ${last.response_status}` : (last.error_kind ?? 'failed');
  return `${time(last.at)}: ${what}`;
}

/**
 * The e-mail of one stage to a technical contact: plain text, our words and the partner's own endpoint
 * only, with where to read the delivery log through the API.
 */
export function noticeMail(
  env: Pick<Env, 'PUBLIC_BASE_URL' | 'PORT'>,
  subscription: SubscriptionRow,
  stage: NoticeStage,
  streak: NoticeStreak,
  now: Date,
): { subject: string; text: string } {
  const base = (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const id = subscription.id;
  const env_ = subscription.environment;
  const facts = [
    `  Endpoint:         ${subscription.url}`,
    `  Subscription:     ${id} (${env_})`,
    `  First failure:    ${time(streak.started)}`,
    ...(streak.failed_attempts === null
      ? []
      : [`  Last failure:     ${lastError(streak)}`, `  Failed attempts:  ${streak.failed_attempts}`]),
  ];
  const log = [
    'The delivery log, with every attempt and its response or error (with your X-Client-ID and X-API-Key):',
    `  GET ${base}/partner/webhooks/${id}/deliveries`,
  ];
  const resume = [
    `To resume, enable it (PATCH ${base}/partner/webhooks/${id} with {"status": "enabled"}) once your endpoint answers 2xx;`,
    `events that arrived meanwhile are recorded as skipped, and a replay with "only": "missing" sends them`,
    `(POST ${base}/partner/webhooks/${id}/replay).`,
  ];
  const footer = [
    '',
    '--',
    `You receive this as a technical contact of this partner account. The list is at GET ${base}/partner/contacts`,
    '(PUT it to change who is told). The same news goes as webhook.failing, webhook.disabled and webhook.recovered',
    'events to your other subscriptions that list them in their event_filters.',
  ];
  const deadline = streak.disables_after;
  const untilDisabled = deadline === null ? '' : roughly(deadline * 1000 - now.getTime());
  const prefix = `[${env_}] Webhook endpoint`;
  let subject: string;
  let opening: string[];
  let advice: string[];
  switch (stage) {
    case 'failing':
    case 'warning_50':
    case 'warning_90':
      subject =
        stage === 'failing'
          ? `${prefix} failing: ${subscription.url}`
          : `${prefix} will be disabled in about ${untilDisabled}: ${subscription.url}`;
      opening = [
        `Every attempt to deliver to your webhook endpoint has failed for ${roughly(now.getTime() - streak.started * 1000)}.`,
        stage === 'failing'
          ? 'Each failed delivery is retried (next_attempt_at in the delivery log); one that fails its last retry stays there as failed, and a replay sends it again.'
          : stage === 'warning_50'
            ? `Half of the time after which a failing subscription is disabled has passed: it will be disabled in about ${untilDisabled}.`
            : `90 % of the time after which a failing subscription is disabled has passed: it will be disabled in about ${untilDisabled}. This is the last warning.`,
      ];
      advice = [
        `If every attempt keeps failing, the first failure after ${time(deadline!)} disables the subscription`,
        '(too_many_failures): events are then recorded as skipped and not sent. Any 2xx answer ends the streak.',
      ];
      break;
    case 'disabled':
      subject = `${prefix} disabled: ${subscription.url}`;
      opening = [
        subscription.disabledReason === 'gone'
          ? 'Your webhook endpoint answered 410 Gone, which asks us to stop sending: its subscription is disabled (gone).'
          : `Every attempt to deliver to your webhook endpoint failed for ${roughly(
              (streak.ended ?? now.getTime() / 1000) * 1000 - streak.started * 1000,
            )}: its subscription is disabled (too_many_failures).`,
      ];
      advice = resume;
      break;
    case 'recovered':
      subject = `${prefix} recovered: ${subscription.url}`;
      opening = [
        `Your webhook endpoint answered 2xx again at ${time(streak.ended!)}: the failures that began at ${time(streak.started)} are over.`,
        'Deliveries that were waiting for a retry are sent at their next attempt.',
      ];
      advice = [];
      break;
  }
  return { subject, text: [...opening, '', ...facts, '', ...(advice.length ? [...advice, ''] : []), ...log, ...footer].join('\n') };
}
