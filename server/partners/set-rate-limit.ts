import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { partners } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { findPartnerOrThrow } from './find';
import { rateLimitOf } from './present';
import { setRateLimitInput } from './schemas';

export async function setRateLimit({ ctx, input }: { ctx: Ctx; input: z.input<typeof setRateLimitInput> }) {
  const { partnerId, perSecond } = parseOrThrow(setRateLimitInput, input);
  return withTransaction(ctx, async (tx) => {
    const partner = await findPartnerOrThrow(tx, partnerId, true);
    await tx.db.update(partners).set({ rateLimitPerSecond: perSecond }).where(eq(partners.id, partnerId));
    await recordAudit(tx, {
      action: 'partner.rate_limit.set',
      targetType: 'partner',
      targetId: partnerId,
      before: { per_second: partner.rateLimitPerSecond },
      after: { per_second: perSecond },
    });
    const limit = rateLimitOf(ctx.env, partnerId, perSecond);
    return { id: partnerId, rate_limit_per_second: limit.perSecond, burst: limit.burst };
  });
}
