import { newId } from '../ids';
import { auditLog } from '@/db/schema';
import type { Ctx } from '../context';
import { maskSecrets } from './mask';

function actorName(ctx: Ctx): string {
  const a = ctx.actor;
  return a.kind === 'operator' ? `operator:${a.operatorId}` : a.kind === 'partner' ? `partner:${a.partnerId}` : `system:${a.name}`;
}

/**
 * Appends one audit entry, in the caller's transaction so an undone change leaves no entry. `before`
 * and `after` hold the changed fields; any secret in them (a password, key, token, signing secret, at
 * any depth) is stored as "[masked]".
 */
export async function recordAudit(
  ctx: Ctx,
  entry: { action: string; targetType: string; targetId: string; before?: unknown; after?: unknown },
): Promise<void> {
  await ctx.db.insert(auditLog).values({
    id: newId(),
    actor: actorName(ctx),
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    before: maskSecrets(entry.before ?? null),
    after: maskSecrets(entry.after ?? null),
  });
}
