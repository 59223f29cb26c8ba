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
