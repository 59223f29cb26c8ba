import { z } from 'zod';

// Pure zod: the verbs validate with these, and the console's forms too (no database import here).

export const OPERATOR_ROLES = ['admin', 'support'] as const;

/** The password policy: length is what protects a password hashed with scrypt (NIST SP 800-63B). */
export const operatorPassword = z.string().min(12, 'at least 12 characters').max(200);

export const createOperatorInput = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  /** Absent: one is generated and returned once, in generatedPassword. */
  password: operatorPassword.optional(),
  role: z.enum(OPERATOR_ROLES),
});

export const changePasswordInput = z
  .strictObject({
    currentPassword: z.string().min(1, 'required').max(200),
    newPassword: operatorPassword,
  })
  .refine((v) => v.newPassword !== v.currentPassword, { path: ['newPassword'], message: 'must differ from the current password' });
