import { z } from 'zod';

// Pure: the /access page imports these to validate as the visitor types, and the route validates the
// same way, so the page and the API can never disagree about a field.

// Bounds keep one request small (a public form, no credentials): a 64 KiB body of junk is refused by
// the body limit, a long field here with the field's name.
export const ACCESS_FIELD_LIMITS = { company: 200, contact_name: 200, contact_email: 254, website: 500, use_case: 2000 } as const;

const text = (max: number) => z.string().trim().min(1, 'required: please fill it in').max(max, `at most ${max} characters`);
// A name is one line: a newline in `contact_name` let a stranger write paragraphs (and links) into mail.
const line = (max: number) => text(max).regex(/^\P{Cc}*$/u, 'one line, without control characters');

export const accessRequestInput = z.strictObject({
  company: line(ACCESS_FIELD_LIMITS.company),
  contact_name: line(ACCESS_FIELD_LIMITS.contact_name),
  contact_email: z.string().trim().max(ACCESS_FIELD_LIMITS.contact_email, 'at most 254 characters').pipe(z.email('not an e-mail address')),
  website: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .max(ACCESS_FIELD_LIMITS.website, `at most ${ACCESS_FIELD_LIMITS.website} characters`)
    .optional(),
  expected_monthly_orders: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(10_000_000, 'at most 10,000,000')
    .optional(),
  use_case: text(ACCESS_FIELD_LIMITS.use_case),
});
export type AccessRequestInput = z.infer<typeof accessRequestInput>;

export const accessRequestAccepted = z.object({
  status: z.literal('confirmation_sent'),
  message: z.string(),
});

export const confirmAccessInput = z.strictObject({ token: z.string().min(1).max(200) });
export const accessConfirmed = z.object({ status: z.literal('confirmed'), message: z.string() });

export const ACCESS_DECIDED_STATUSES = ['new', 'approved', 'rejected'] as const;
export type AccessListStatus = (typeof ACCESS_DECIDED_STATUSES)[number];

export const rejectAccessInput = z.strictObject({ id: z.string().min(1), reason: text(1000) });
