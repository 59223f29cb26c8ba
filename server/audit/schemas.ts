import { z } from 'zod';
import { isStorableText } from '../validation';

// Pure zod: the audit log's verbs validate their filter with these, and the console's filter form too
// (no database import here).

const text = (max: number) => z.string().trim().min(1).max(max).refine(isStorableText, 'must not contain U+0000 or an unpaired surrogate');

const textFields = {
  /** An operator id or e-mail, or a raw actor as stored ("operator:cli", "system:demo-seed"). */
  actor: text(254).optional(),
  action: text(100).optional(),
  targetType: text(100).optional(),
  targetId: text(200).optional(),
};

const sinceBeforeUntil = (f: { since?: Date; until?: Date }) => !f.since || !f.until || f.since < f.until;
const untilMessage = { message: 'until must be after since', path: ['until'] };

/** What the audit log can be narrowed by: the console's filters and the export's query parameters. */
export const auditFilterInput = z
  .strictObject({
    ...textFields,
    /** Inclusive. */
    since: z.date().optional(),
    /** Exclusive. */
    until: z.date().optional(),
  })
  .refine(sinceBeforeUntil, untilMessage);

export type AuditFilter = z.infer<typeof auditFilterInput>;

// A datetime-local input's value (2026-11-24T21:30, the browser's time zone) as the moment it names.
const localTime = z
  .string()
  .transform((s, c) => {
    const date = new Date(s);
    if (Number.isNaN(date.getTime())) {
      c.addIssue({ code: 'custom', message: 'not a date and time' });
      return z.NEVER;
    }
    return date;
  })
  .optional();

/** The console's audit filter form: the same fields, times as typed into datetime-local inputs. */
export const auditFilterForm = z.strictObject({ ...textFields, since: localTime, until: localTime }).refine(sinceBeforeUntil, untilMessage);

/** The actions the audit log records, offered as suggestions by the console's filter (any text may be typed). */
export const AUDIT_ACTIONS = [
  'allowlist.add',
  'allowlist.remove',
  'credential.issue',
  'credential.revoke',
  'event.redeliver',
  'operator.create',
  'operator.role.change',
  'operator.sign_in',
  'operator.sign_out',
  'order.advance',
  'partner.create',
  'partner.go_live.approve',
  'partner.go_live.reject',
  'partner.go_live.request',
  'partner.rate_limit.set',
  'session.revoke',
  'webhook.create',
  'webhook.delete',
  'webhook.replay',
  'webhook.replay.cancel',
  'webhook.rotate_secret',
  'webhook.update',
] as const;
