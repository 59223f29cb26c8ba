import { eq } from 'drizzle-orm';
import { newId } from '../ids';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorRole } from '../context';
import { ConflictError } from '../errors';
import { parseOrThrow } from '../validation';
import { generatePassword, hashPassword } from './password';

export const createOperatorInput = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  /** Absent: one is generated and returned once, in generatedPassword. */
  password: z.string().min(12, 'at least 12 characters').max(200).optional(),
  role: z.enum(['admin', 'support']),
});

export interface CreatedOperator {
  id: string;
  email: string;
  role: OperatorRole;
  createdAt: Date;
  /** Only when the password was generated: this is the one time it is shown; only its hash is stored. */
  generatedPassword?: string;
}

export async function createOperator({ ctx, input }: { ctx: Ctx; input: z.input<typeof createOperatorInput> }): Promise<CreatedOperator> {
  const { email, password, role } = parseOrThrow(createOperatorInput, input);
  const generatedPassword = password === undefined ? generatePassword() : undefined;
  const passwordHash = await hashPassword(password ?? generatedPassword!);
  return withTransaction(ctx, async (tx) => {
    const [existing] = await tx.db.select({ id: operators.id }).from(operators).where(eq(operators.email, email));
    if (existing) throw new ConflictError('operator_exists', `An operator with e-mail ${email} already exists.`);
    const id = newId();
    const [row] = await tx.db.insert(operators).values({ id, email, passwordHash, role }).returning({ createdAt: operators.createdAt });
    await recordAudit(tx, { action: 'operator.create', targetType: 'operator', targetId: id, after: { email, role } });
    return { id, email, role, createdAt: row!.createdAt, ...(generatedPassword ? { generatedPassword } : {}) };
  });
}
