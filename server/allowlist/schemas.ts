import { z } from 'zod';
import { normaliseCidr } from '../auth/cidr';

// Pure zod over the same CIDR rule as the verbs (server/auth/cidr.ts: ipaddr.js, no node built-ins),
// so the console validates an entry as it is typed exactly as the server will.

export const allowlistEntryInput = z.strictObject({
  cidr: z
    .string()
    .trim()
    .refine((text) => normaliseCidr(text) !== undefined, 'not an IPv4 or IPv6 address or CIDR'),
  label: z.string().max(200, 'at most 200 characters').optional(),
});
