import { eq } from 'drizzle-orm';
import { partners } from '@/db/schema';
import type { Ctx } from '../context';
import { NotFoundError } from '../errors';

export async function findPartnerOrThrow(ctx: Ctx, partnerId: string, forUpdate = false) {
  const query = ctx.db.select().from(partners).where(eq(partners.id, partnerId));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('partner', partnerId);
  return row;
}
