import { z } from 'zod';
import { isStorableText } from '../validation';

// Pure zod: the partner verbs validate with these, and the console's forms too (no database import here).

export const createPartnerInput = z.strictObject({ name: z.string().trim().min(1).max(200) });

export const setRateLimitInput = z.strictObject({
  partnerId: z.string().min(1),
  // null restores the platform default.
  perSecond: z.number().int().min(1).max(100_000).nullable(),
});

export const decideGoLiveInput = z.strictObject({
  partnerId: z.string().min(1),
  decision: z.enum(['request', 'approve', 'reject']),
  // Why rejected, what was checked: kept with the partner until the next decision replaces it.
  note: z.string().trim().max(2000).refine(isStorableText, 'text must not contain U+0000 or an unpaired surrogate').optional(),
  // Approving with an address issues the production credential and hands it over there; rejecting
  // with one e-mails the reason.
  email: z.string().trim().email().max(320).optional(),
});

export const MAX_TECHNICAL_CONTACTS = 10;

/** One contact address: stored lower-cased, so the list holds each address once whatever its spelling. */
const contactEmail = z.string().trim().toLowerCase().pipe(z.email('must be an e-mail address').max(254));

export const setTechnicalContactsInput = z
  .strictObject({
    emails: z
      .array(contactEmail)
      .max(MAX_TECHNICAL_CONTACTS)
      .superRefine((list, ctx) => {
        list.forEach((email, i) => {
          if (list.indexOf(email) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `'${email}' is already in the list` });
        });
      })
      .meta({
        description: `Who is e-mailed when a webhook subscription fails, nears auto-disable, is disabled or recovers: at most ${MAX_TECHNICAL_CONTACTS}, in order; empty mails nobody`,
      }),
    sandbox_notifications: z.boolean().optional().meta({
      description: 'Also notify (mail and webhook.* events) for sandbox subscriptions; absent leaves it as it is. Default false',
    }),
  })
  .meta({ id: 'TechnicalContactsUpdate' });
export type SetTechnicalContactsInput = z.infer<typeof setTechnicalContactsInput>;

export const technicalContactsResource = z
  .object({
    object: z.literal('technical_contacts'),
    emails: z.array(z.string()),
    sandbox_notifications: z.boolean(),
  })
  .meta({ id: 'TechnicalContacts' });
export type TechnicalContacts = z.infer<typeof technicalContactsResource>;
