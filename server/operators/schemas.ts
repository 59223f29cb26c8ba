import { z } from 'zod';

// Pure zod: the verbs validate with these, and the console's forms too (no database import here).

export const OPERATOR_ROLES = ['admin', 'support'] as const;

export const createOperatorInput = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  /** Absent: one is generated and returned once, in generatedPassword. */
  password: z.string().min(12, 'at least 12 characters').max(200).optional(),
  role: z.enum(OPERATOR_ROLES),
});
