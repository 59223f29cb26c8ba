import { eq } from 'drizzle-orm';
import { newId } from '../ids';
import type { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx, type OperatorRole } from '../context';
import { ConflictError } from '../errors';
import { parseOrThrow } from '../validation';
import { generatePassword, hashPassword } from './password';
import { createOperatorInput } from './schemas';

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
