import { eq } from 'drizzle-orm';
import { newId } from '../ids';
import { z } from 'zod';
import { operators } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ConflictError } from '../errors';
import { parseOrThrow } from '../validation';
import { hashPassword } from './password';

export const createOperatorInput = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  password: z.string().min(12, 'at least 12 characters').max(200),
  role: z.enum(['admin', 'support']),
});

export async function createOperator({ ctx, input }: { ctx: Ctx; input: z.input<typeof createOperatorInput> }) {
  const { email, password, role } = parseOrThrow(createOperatorInput, input);
  const passwordHash = await hashPassword(password);
  return withTransaction(ctx, async (tx) => {
    const [existing] = await tx.db.select({ id: operators.id }).from(operators).where(eq(operators.email, email));
    if (existing) throw new ConflictError('operator_exists', `An operator with e-mail ${email} already exists.`);
    const id = newId();
    await tx.db.insert(operators).values({ id, email, passwordHash, role });
    await recordAudit(tx, { action: 'operator.create', targetType: 'operator', targetId: id, after: { email, role } });
    return { id, email, role };
  });
}
