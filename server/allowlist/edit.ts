import { and, eq } from 'drizzle-orm';
import { newId } from '../ids';
import { allowlistEntries } from '@/db/schema';
import { normaliseCidr } from '../auth/cidr';
import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { NotFoundError, ValidationError } from '../errors';
import { findPartnerOrThrow } from '../partners/find';

function cidrOrThrow(text: string): string {
  const cidr = normaliseCidr(text);
  if (!cidr)
    throw new ValidationError([{ param: 'cidr', code: 'parameter_invalid', message: `'${text}' is not an IPv4 or IPv6 address or CIDR.` }]);
  return cidr;
}

/** Adds (or relabels) an entry. Every process applies it within CREDENTIAL_CACHE_TTL_MS. */
export async function addAllowlistEntry({ ctx, input }: { ctx: Ctx; input: { partnerId: string; cidr: string; label?: string } }) {
  const cidr = cidrOrThrow(input.cidr);
  if (input.label !== undefined && input.label.length > 200) {
    throw new ValidationError([{ param: 'label', code: 'parameter_out_of_range', message: 'label is at most 200 characters.' }]);
  }
  return withTransaction(ctx, async (tx) => {
    await findPartnerOrThrow(tx, input.partnerId);
    // A relabel records the label it replaced.
    const [previous] = await tx.db
      .select({ label: allowlistEntries.label })
      .from(allowlistEntries)
      .where(and(eq(allowlistEntries.partnerId, input.partnerId), eq(allowlistEntries.cidr, cidr)))
      .for('update');
    const [row] = await tx.db
      .insert(allowlistEntries)
      .values({ id: newId(), partnerId: input.partnerId, cidr, label: input.label ?? null })
      .onConflictDoUpdate({ target: [allowlistEntries.partnerId, allowlistEntries.cidr], set: { label: input.label ?? null } })
      .returning();
    await recordAudit(tx, {
      action: 'allowlist.add',
      targetType: 'partner',
      targetId: input.partnerId,
      before: previous ? { cidr, label: previous.label } : null,
      after: { cidr, label: row!.label },
    });
    return { partner_id: input.partnerId, cidr, label: row!.label };
  });
}

export async function removeAllowlistEntry({ ctx, input }: { ctx: Ctx; input: { partnerId: string; cidr: string } }) {
  const cidr = cidrOrThrow(input.cidr);
  return withTransaction(ctx, async (tx) => {
    const removed = await tx.db
      .delete(allowlistEntries)
      .where(and(eq(allowlistEntries.partnerId, input.partnerId), eq(allowlistEntries.cidr, cidr)))
      .returning();
    if (removed.length === 0) throw new NotFoundError('allowlist entry', cidr);
    await recordAudit(tx, {
      action: 'allowlist.remove',
      targetType: 'partner',
      targetId: input.partnerId,
      before: { cidr, label: removed[0]!.label },
    });
    return { partner_id: input.partnerId, cidr, removed: true };
  });
}
