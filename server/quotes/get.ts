import { and, eq } from 'drizzle-orm';
import { quotes } from '@/db/schema';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import { presentQuote } from './present';
import type { QuoteResource } from './schemas';

/** Another partner's or another environment's quote is indistinguishable from a missing one. */
export async function getQuote({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<QuoteResource> {
  const [row] = await ctx.db
    .select()
    .from(quotes)
    .where(and(eq(quotes.id, input.id), eq(quotes.partnerId, ctx.actor.partnerId), eq(quotes.environment, ctx.actor.environment)));
  if (!row) throw new NotFoundError('quote', input.id);
  return presentQuote(row);
}
